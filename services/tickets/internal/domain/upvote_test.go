package domain

import (
	"testing"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/problem"
)

func TestUpvote(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		upvoters []string
		agent    string
		kind     problem.Kind
	}{
		{"§5 another citizen upvotes", nil, "emb_other", 0},
		{"§5 a second citizen upvotes too", []string{"emb_first"}, "emb_other", 0},
		{"§11 the filer cannot upvote their own ticket: 403", nil, "emb_filer", problem.KindPermission},
		{"§5 a repeat upvote is 409 conflict", []string{"emb_other"}, "emb_other", problem.KindConflict},
		{"§5 an id that only shares a prefix is another citizen", []string{"emb_othe"}, "emb_other", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ticketIn(StatusOpen).Snapshot()
			s.Upvoters, s.Upvotes = tt.upvoters, int64(len(tt.upvoters))
			ticket := Restore(s)
			at := filedAt.Add(time.Minute)
			ev, err := ticket.Upvote(tt.agent, at)
			after := ticket.Snapshot()
			if tt.kind != 0 {
				wantProblem(t, err, tt.kind, "")
				if after.Upvotes != s.Upvotes || after.Version != s.Version {
					t.Fatalf("a refused upvote changed the ticket: %+v", after)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := Upvoted{TicketID: s.ID, AgentID: tt.agent, Upvotes: s.Upvotes + 1, At: clock.Stored(at), Version: s.Version + 1}
			if ev != want {
				t.Fatalf("event = %+v, want %+v", ev, want)
			}
			if after.Upvotes != s.Upvotes+1 || !ticket.HasUpvoted(tt.agent) || !after.UpdatedAt.Equal(s.UpdatedAt) {
				t.Fatalf("after upvote ticket = %+v", after)
			}
		})
	}
}

func TestUpvoteOnAnyStatus(t *testing.T) {
	t.Parallel()
	// Support for a resolved ticket still tells the ambassador the fix mattered;
	// the contract limits upvotes by who, not by status.
	for _, st := range Statuses {
		if _, err := ticketIn(st).Upvote("emb_other", filedAt); err != nil {
			t.Fatalf("§5 upvote on a %s ticket: %v", st, err)
		}
	}
}

package domain

import (
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/problem"
)

func ticketIn(status Status) *Ticket {
	return Restore(Snapshot{
		ID: "tkt_0000abcd", Category: CategoryBug, Title: "t", Description: "d", Severity: SeverityNormal,
		Status: status, CreatedAt: filedAt, UpdatedAt: filedAt, FiledBy: "emb_filer", Version: 3,
	})
}

func TestTransitions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		from, to Status
		allowed  bool
	}{
		{"§5 open→acknowledged", StatusOpen, StatusAcknowledged, true},
		{"§5 open→resolved", StatusOpen, StatusResolved, true},
		{"§5 acknowledged→resolved", StatusAcknowledged, StatusResolved, true},
		{"§5 open→open is not a transition", StatusOpen, StatusOpen, false},
		{"§5 acknowledged→open: no way back", StatusAcknowledged, StatusOpen, false},
		{"§5 acknowledged→acknowledged is not a transition", StatusAcknowledged, StatusAcknowledged, false},
		{"§5 nothing leaves resolved: →open", StatusResolved, StatusOpen, false},
		{"§5 nothing leaves resolved: →acknowledged", StatusResolved, StatusAcknowledged, false},
		{"§5 nothing leaves resolved: →resolved", StatusResolved, StatusResolved, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CanMove(tt.from, tt.to); got != tt.allowed {
				t.Fatalf("CanMove(%s, %s) = %v, want %v", tt.from, tt.to, got, tt.allowed)
			}
			ticket := ticketIn(tt.from)
			at := filedAt.Add(2 * time.Hour)
			ev, err := ticket.Apply(Triage{To: tt.to, Response: "thanks"}, at)
			s := ticket.Snapshot()
			if !tt.allowed {
				wantProblem(t, err, problem.KindConflict, "")
				if s.Status != tt.from || s.Version != 3 || s.Response != "" || !s.UpdatedAt.Equal(filedAt) {
					t.Fatalf("a refused transition changed the ticket: %+v", s)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			at = clock.Stored(at) // BSON dates keep milliseconds
			if s.Status != tt.to || s.Version != 4 || s.Response != "thanks" || !s.UpdatedAt.Equal(at) {
				t.Fatalf("after %s→%s ticket = %+v", tt.from, tt.to, s)
			}
			want := StatusChanged{TicketID: s.ID, From: tt.from, To: tt.to, Response: "thanks", At: at,
				Category: CategoryBug, Title: "t", CreatedAt: filedAt, Version: 4}
			if ev != want {
				t.Fatalf("event = %+v, want %+v", ev, want)
			}
		})
	}
}

func TestParseTriage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		req          TriageRequest
		kind         problem.Kind
		wantResponse string
	}{
		{"§5 status alone", TriageRequest{Status: "acknowledged"}, 0, ""},
		{"§5 status with response", TriageRequest{Status: "resolved", Response: ptr("Fixed in 1.2")}, 0, "Fixed in 1.2"},
		{"§5 blank response means no response", TriageRequest{Status: "resolved", Response: ptr("  ")}, 0, ""},
		{"§11 missing status is 400", TriageRequest{Response: ptr("x")}, problem.KindInvalid, ""},
		{"§11 unknown status is 400", TriageRequest{Status: "closed"}, problem.KindInvalid, ""},
		{"§11 withdrawing is not a status: 400", TriageRequest{Status: "withdrawn"}, problem.KindInvalid, ""},
		{"§11 response of 3000 characters is accepted", TriageRequest{Status: "resolved", Response: ptr(strings.Repeat("r", 3000))}, 0, strings.Repeat("r", 3000)},
		{"§11 response over 3000 characters is 422", TriageRequest{Status: "resolved", Response: ptr(strings.Repeat("r", 3001))}, problem.KindValidation, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTriage(tt.req)
			if tt.kind != 0 {
				wantProblem(t, err, tt.kind, "")
				return
			}
			if err != nil || got.Response != tt.wantResponse || string(got.To) != tt.req.Status {
				t.Fatalf("ParseTriage = %+v, %v", got, err)
			}
		})
	}
}

func TestTriageKeepsEarlierResponseWhenNoneGiven(t *testing.T) {
	t.Parallel()
	ticket := ticketIn(StatusOpen)
	if _, err := ticket.Apply(Triage{To: StatusAcknowledged, Response: "looking"}, filedAt.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	ev, err := ticket.Apply(Triage{To: StatusResolved}, filedAt.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if got := ticket.Snapshot().Response; got != "looking" || ev.Response != "looking" {
		t.Fatalf("response = %q, event %q; want the earlier response kept", got, ev.Response)
	}
	if ev.Version != 5 {
		t.Fatalf("version %d after two changes from 3, want 5", ev.Version)
	}
}

package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/tickets/internal/domain"
)

// TestListOrder: every page, cursor by cursor, for every filter and page
// size, is the stored tickets in list order (newest first, _id descending
// within a millisecond), and the counts are the tickets per status — after
// filing, after triage and upvotes, and from a second adapter opened on
// the stored tickets (as a restarted process opens them).
func TestListOrder(t *testing.T) {
	testkit.EachAdapter(t, newMongo, newMirrored, func(t *testing.T, kit *testkit.Kit, open func() adapter) {
		testListOrder(t, kit, open)
	})
}

func testListOrder(t *testing.T, kit *testkit.Kit, open func() adapter) {
	ctx := kit.Ctx()
	repo := open()
	if err := repo.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	categories := []string{"bug", "docs", "feature"}
	all := map[domain.TicketID]domain.Snapshot{}
	for i := range 23 {
		by := fmt.Sprintf("emb_order%d", i/5) // five slots a filer a day
		when := at.Add(time.Duration(i/3) * time.Second)
		f := mustFiling(t, categories[i%3])
		snap, err := repo.File(ctx, by, domain.Day(when), fiveSlots, func(id domain.TicketID) (*domain.Ticket, domain.Filed) {
			return f.Ticket(id, by, when)
		})
		if err != nil {
			t.Fatal(err)
		}
		all[snap.ID] = snap
	}
	st := func(s domain.Status) *domain.Status { return &s }
	cat := func(c domain.Category) *domain.Category { return &c }
	filters := map[string]domain.ListFilter{
		"all": {}, "open": {Status: st(domain.StatusOpen)}, "resolved": {Status: st(domain.StatusResolved)},
		"docs": {Category: cat("docs")}, "open bugs": {Status: st(domain.StatusOpen), Category: cat("bug")},
	}
	agree := func(stage string, r adapter) {
		t.Helper()
		var want domain.Counts
		for _, s := range all {
			switch s.Status {
			case domain.StatusOpen:
				want.Open++
			case domain.StatusAcknowledged:
				want.Acknowledged++
			case domain.StatusResolved:
				want.Resolved++
			}
		}
		if got, err := r.Counts(ctx); err != nil || got != want {
			t.Fatalf("%s: counts %+v %v, want %+v", stage, got, err, want)
		}
		for name, f := range filters {
			for _, limit := range []int{1, 4, 50} {
				if got, want := walk(t, ctx, r, f, limit), expectedOrder(all, f); got != want {
					t.Fatalf("%s: %s, limit %d:\n got %s\nwant %s", stage, name, limit, got, want)
				}
			}
		}
		for id, want := range all {
			got, err := r.Get(ctx, id)
			if err != nil || got.Status != want.Status || got.Version != want.Version || !got.CreatedAt.Equal(want.CreatedAt) {
				t.Fatalf("%s: get %s: %+v %v, want %+v", stage, id, got, err, want)
			}
		}
	}
	agree("after filing", repo)

	// Triage and upvotes move tickets between the status orders; an upvote
	// changes the version but not the status.
	i := 0
	for id := range all {
		to := []domain.Status{domain.StatusAcknowledged, domain.StatusResolved, domain.StatusOpen}[i%3]
		i++
		fn := func(tk *domain.Ticket) (domain.Event, error) {
			return tk.Apply(domain.Triage{To: to}, at.Add(time.Minute))
		}
		if to == domain.StatusOpen {
			fn = func(tk *domain.Ticket) (domain.Event, error) { return tk.Upvote("emb_fan", at) }
		}
		snap, err := repo.Change(ctx, id, fn)
		if err != nil {
			t.Fatal(err)
		}
		all[id] = snap
		if i == 11 {
			break
		}
	}
	agree("after triage and upvotes", repo)

	reopened := open()
	if err := reopened.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	agree("opened on the stored tickets", reopened)
}

// expectedOrder is the list the stored tickets make for f, by brute force.
func expectedOrder(all map[domain.TicketID]domain.Snapshot, f domain.ListFilter) string {
	var in []domain.Snapshot
	for _, s := range all {
		if (f.Status == nil || s.Status == *f.Status) && (f.Category == nil || s.Category == *f.Category) {
			in = append(in, s)
		}
	}
	slices.SortFunc(in, func(a, b domain.Snapshot) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = string(s.ID) + "/" + string(s.Status)
	}
	return strings.Join(out, ",")
}

// walk pages through a list with cursors and returns the ids in order.
func walk(t *testing.T, ctx context.Context, r domain.Repository, f domain.ListFilter, limit int) string {
	t.Helper()
	var out []string
	q := domain.ListQuery{Filter: f, Limit: limit}
	for page := 0; page < 100; page++ {
		got, err := r.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range got {
			out = append(out, string(g.ID)+"/"+string(g.Status))
		}
		if len(got) < limit {
			return strings.Join(out, ",")
		}
		p := got[len(got)-1].Position()
		q.After = &p
	}
	t.Fatal("paging did not end")
	return ""
}

func mustFiling(t *testing.T, category string) domain.Filing {
	t.Helper()
	f, err := domain.ParseFiling(domain.FileRequest{Category: category, Title: "t", Description: "d"})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

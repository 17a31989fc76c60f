package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/tickets/internal/domain"
	"sharedworld.dev/services/tickets/internal/messages"
)

// The in-memory copy of the exclusive embedded backend must give exactly
// the pages, counts and tickets the MongoDB queries give, cursor by cursor,
// for every filter, including tickets created in the same millisecond,
// loaded at start and kept by writes.
func TestExclusiveMirrorAgreesWithTheQueries(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	queried := New(mongox.NewDB(kit.DB.Database, mongox.Shared), messages.Encode, nil)
	if err := queried.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	categories := []string{"bug", "docs", "feature"}
	var ids []domain.TicketID
	for i := range 23 {
		by := fmt.Sprintf("emb_%d", i/5) // five slots a filer a day
		when := at.Add(time.Duration(i/3) * time.Second)
		f := mustFiling(t, categories[i%3])
		snap, err := queried.File(ctx, by, domain.Day(when), []int{1, 2, 3, 4, 5}, func(id domain.TicketID) (*domain.Ticket, domain.Filed) {
			return f.Ticket(id, by, when)
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, snap.ID)
	}
	for i, id := range ids[:9] { // some acknowledged, some resolved
		to := "acknowledged"
		if i%2 == 1 {
			to = "resolved"
		}
		tr, _ := domain.ParseTriage(domain.TriageRequest{Status: to})
		if _, err := queried.Change(ctx, id, func(tk *domain.Ticket) (domain.Event, error) { return tk.Apply(tr, at.Add(time.Minute)) }); err != nil {
			t.Fatal(err)
		}
	}
	// A second store on the same database, as the embedded world builds it:
	// its copy is loaded from the stored tickets.
	indexed := New(mongox.NewDB(kit.DB.Database, mongox.Exclusive), messages.Encode, nil)
	if err := indexed.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if indexed.mirror == nil || queried.mirror != nil {
		t.Fatal("only the exclusive store keeps a copy")
	}
	st := func(s domain.Status) *domain.Status { return &s }
	cat := func(c domain.Category) *domain.Category { return &c }
	filters := map[string]domain.ListFilter{
		"all": {}, "open": {Status: st(domain.StatusOpen)}, "resolved": {Status: st(domain.StatusResolved)},
		"docs": {Category: cat("docs")}, "open bugs": {Status: st(domain.StatusOpen), Category: cat("bug")},
	}
	agree := func(stage string, want domain.Counts) {
		t.Helper()
		for name, f := range filters {
			for _, limit := range []int{1, 4, 50} {
				a, b := walk(t, ctx, queried, f, limit), walk(t, ctx, indexed, f, limit)
				if a != b || a == "" && name == "all" {
					t.Fatalf("%s: %s, limit %d:\nqueries %s\nindex   %s", stage, name, limit, a, b)
				}
			}
		}
		for _, id := range append(ids, "tkt_none") {
			q, qerr := queried.Get(ctx, id)
			i, ierr := indexed.Get(ctx, id)
			if fmt.Sprint(q, qerr) != fmt.Sprint(i, ierr) {
				t.Fatalf("%s: get %s: queries %+v %v, copy %+v %v", stage, id, q, qerr, i, ierr)
			}
		}
		qc, _ := queried.Counts(ctx)
		ic, _ := indexed.Counts(ctx)
		if qc != ic || qc != want {
			t.Fatalf("%s: counts: queries %+v index %+v, want %+v", stage, qc, ic, want)
		}
	}
	agree("loaded at start", domain.Counts{Open: 14, Acknowledged: 5, Resolved: 4})

	// Writes through the indexed store reach its copy: new tickets in the
	// same millisecond as older ones, status changes, and an upvote (which
	// changes the version but not the status).
	late := at.Add(7 * time.Second) // the millisecond of tickets 21 and 22
	for range 3 {
		f := mustFiling(t, "docs")
		if _, err := indexed.File(ctx, "emb_late", domain.Day(late), []int{1, 2, 3, 4, 5}, func(id domain.TicketID) (*domain.Ticket, domain.Filed) {
			return f.Ticket(id, "emb_late", late)
		}); err != nil {
			t.Fatal(err)
		}
	}
	for i, to := range map[int]domain.Status{9: domain.StatusAcknowledged, 10: domain.StatusResolved, 0: domain.StatusResolved} {
		if _, err := indexed.Change(ctx, ids[i], func(tk *domain.Ticket) (domain.Event, error) {
			return tk.Apply(domain.Triage{To: to}, at.Add(2*time.Minute))
		}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := indexed.Change(ctx, ids[11], func(tk *domain.Ticket) (domain.Event, error) { return tk.Upvote("emb_fan", at) }); err != nil {
		t.Fatal(err)
	}
	agree("after writes through the index", domain.Counts{Open: 15, Acknowledged: 5, Resolved: 6})
}

// walk pages through a list with cursors and returns the ids in order.
func walk(t *testing.T, ctx context.Context, s *Store, f domain.ListFilter, limit int) string {
	t.Helper()
	var out []string
	q := domain.ListQuery{Filter: f, Limit: limit}
	for page := 0; page < 100; page++ {
		got, err := s.List(ctx, q)
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

package store

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/governance/internal/domain"
	"sharedworld.dev/services/governance/internal/messages"
)

// TestListsAgreeWithTheQueryPath writes proposals (several types, times
// shared by several, some moved on, some with ballots) and elections
// through the store of the kit's mode, and compares every filter, page size
// and cursor of the proposal list, the counts, the due list, the election
// list and the first election with the MongoDB query path (a store on a
// shared handle of the same database) and with a store that loads its copy
// afresh.
func TestListsAgreeWithTheQueryPath(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	written := New(kit.DB, messages.Encode, nil)
	if err := written.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		by, typ, when := fmt.Sprintf("agent_%02d", i/3), domain.ProposalTypes[i%len(domain.ProposalTypes)], at.Add(time.Duration(i/4)*time.Hour)
		p, err := written.Propose(ctx, by, "day", []int{1, 2, 3}, func(id string) (*domain.Proposal, domain.ProposalCreated) {
			return domain.NewProposal(id, domain.Draft{Type: typ, Title: "t", Body: "b"}, by, when, 100)
		})
		if err != nil {
			t.Fatal(err)
		}
		if i%5 == 1 || i%5 == 2 {
			if _, err := written.ChangeProposal(ctx, p.ID, func(p *domain.Proposal) ([]domain.Event, error) {
				p.Status = domain.Voting
				return nil, nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		if i%5 == 2 {
			if _, err := written.ChangeProposal(ctx, p.ID, cast("voter", domain.For)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i, role := range []domain.Office{domain.Chief, domain.Land, domain.Peace, domain.Chief} {
		when := at.Add(time.Duration(i%2) * time.Hour)
		if _, err := written.OpenElection(ctx, role, when, func(id string) (*domain.Election, domain.ElectionOpened) {
			return domain.OpenElection(id, role, when)
		}); err != nil {
			t.Fatal(err)
		}
	}
	query := New(mongox.NewDB(kit.DB.Database, mongox.Shared), messages.Encode, nil)
	reloaded := New(mongox.NewDB(kit.DB.Database, kit.DB.Mode()), messages.Encode, nil)
	if err := reloaded.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	agree := func(what string, got, want any, gerr, werr error) {
		t.Helper()
		if gerr != nil || werr != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got %+v %v\nwant %+v %v", what, got, gerr, want, werr)
		}
	}
	statuses := append([]*domain.ProposalStatus{nil}, ptrs(domain.ProposalStatuses)...)
	types := append([]*domain.ProposalType{nil}, ptrs(domain.ProposalTypes)...)
	for name, s := range map[string]*Store{"as written": written, "loaded at start": reloaded} {
		for _, st := range statuses {
			for _, typ := range types {
				for _, limit := range []int{0, 1, 4, 50} {
					q := domain.ProposalQuery{Status: st, Type: typ, Limit: limit}
					for page := 0; ; page++ {
						got, gerr := s.Proposals(ctx, q)
						want, werr := query.Proposals(ctx, q)
						agree(fmt.Sprintf("%s: proposals %v %v limit %d page %d", name, st, typ, limit, page), got, want, gerr, werr)
						if limit == 0 || len(want) < limit {
							break
						}
						last := want[len(want)-1]
						q.After = &domain.Position{CreatedAt: last.CreatedAt, ID: last.ID}
					}
				}
			}
		}
		gc, gerr := s.CountProposals(ctx)
		wc, werr := query.CountProposals(ctx)
		agree(name+": counts", gc, wc, gerr, werr)
		for _, now := range []time.Time{at, at.Add(5 * 24 * time.Hour), at.Add(30 * 24 * time.Hour)} {
			gd, gerr := s.DueProposals(ctx, now)
			wd, werr := query.DueProposals(ctx, now)
			agree(fmt.Sprintf("%s: due at %v", name, now), byID(gd), byID(wd), gerr, werr)
		}
		for _, st := range []*domain.ElectionStatus{nil, ptr(domain.Nominating), ptr(domain.Closed)} {
			for _, role := range []*domain.Office{nil, ptr(domain.Chief), ptr(domain.Embassy)} {
				q := domain.ElectionQuery{Status: st, Role: role}
				got, gerr := s.Elections(ctx, q)
				want, werr := query.Elections(ctx, q)
				agree(fmt.Sprintf("%s: elections %+v", name, q), got, want, gerr, werr)
			}
		}
		ga, gok, gerr := s.FirstElectionAt(ctx)
		wa, wok, werr := query.FirstElectionAt(ctx)
		agree(name+": first election", fmt.Sprint(ga, gok), fmt.Sprint(wa, wok), gerr, werr)
	}
}

func ptr[T any](v T) *T { return &v }

func ptrs[T any](vs []T) []*T {
	out := make([]*T, len(vs))
	for i := range vs {
		out[i] = &vs[i]
	}
	return out
}

func byID(ps []domain.Proposal) map[string]domain.Proposal {
	out := map[string]domain.Proposal{}
	for _, p := range ps {
		out[p.ID] = p
	}
	return out
}

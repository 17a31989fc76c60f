package store

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/governance/internal/domain"
)

// TestListsContract writes proposals (several types, times shared by
// several, some moved on, some with ballots, some passed recalls) and
// elections (one closed), and checks every filter, page size and cursor of
// the proposal list, the counts, the due list, the election list and the
// first election against what the written aggregates make (computed here,
// by brute force): through the adapter that wrote them and through a
// second one opened on the stored data, as a restarted process opens it.
func TestListsContract(t *testing.T) {
	testkit.EachAdapter(t, newMongo, newMirrored, testLists)
}

func testLists(t *testing.T, kit *testkit.Kit, open func() adapter) {
	ctx := kit.Ctx()
	written := open()
	if err := written.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	proposals := map[string]domain.Proposal{}
	keep := func(p domain.Proposal, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		proposals[p.ID] = p
	}
	for i := range 30 {
		by, typ, when := fmt.Sprintf("agent_%02d", i/3), domain.ProposalTypes[i%len(domain.ProposalTypes)], at.Add(time.Duration(i/4)*time.Hour)
		p, err := written.Propose(ctx, by, "day", []int{1, 2, 3}, func(id string) (*domain.Proposal, domain.ProposalCreated) {
			return domain.NewProposal(id, domain.Draft{Type: typ, Title: "t", Body: "b"}, by, when, 100)
		})
		keep(p, err)
		if i%5 == 1 || i%5 == 2 {
			keep(written.ChangeProposal(ctx, p.ID, func(p *domain.Proposal) ([]domain.Event, error) {
				p.Status = domain.Voting
				return nil, nil
			}))
		}
		if i%5 == 2 {
			keep(written.ChangeProposal(ctx, p.ID, cast("voter", domain.For)))
		}
		if i%10 == 3 { // a passed recall not yet applied: due until it is
			keep(written.ChangeProposal(ctx, p.ID, func(p *domain.Proposal) ([]domain.Event, error) {
				p.Status, p.Recall = domain.Passed, &domain.RecallTarget{Role: domain.Land, AgentID: "agent_steward", TermStart: at}
				return nil, nil
			}))
		}
	}
	var elections []domain.Election
	for i, role := range []domain.Office{domain.Chief, domain.Land, domain.Peace, domain.Chief} {
		when := at.Add(time.Duration(i%2) * time.Hour)
		e, err := written.OpenElection(ctx, role, when, func(id string) (*domain.Election, domain.ElectionOpened) {
			return domain.OpenElection(id, role, when)
		})
		if err != nil {
			t.Fatal(err)
		}
		elections = append(elections, e)
	}
	closed, err := written.ChangeElection(ctx, elections[1].ID, func(e *domain.Election) ([]domain.Event, error) {
		e.Status, e.ClosedAt = domain.Closed, at.Add(2*time.Hour)
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	elections[1] = closed

	checkLists(t, "as written", written, proposals, elections)
	reopened := open()
	if err := reopened.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	checkLists(t, "opened on the stored data", reopened, proposals, elections)
}

// checkLists compares every list read of repo with the lists the stored
// proposals and elections make.
func checkLists(t *testing.T, stage string, repo adapter, proposals map[string]domain.Proposal, elections []domain.Election) {
	t.Helper()
	ctx := t.Context()
	agree := func(what string, got, want any, err error) {
		t.Helper()
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %s:\n got %+v %v\nwant %+v", stage, what, got, err, want)
		}
	}
	statuses := append([]*domain.ProposalStatus{nil}, ptrs(domain.ProposalStatuses)...)
	types := append([]*domain.ProposalType{nil}, ptrs(domain.ProposalTypes)...)
	for _, st := range statuses {
		for _, typ := range types {
			for _, limit := range []int{0, 1, 4, 50} {
				q := domain.ProposalQuery{Status: st, Type: typ, Limit: limit}
				for page := 0; ; page++ {
					want := expectedProposals(proposals, q)
					got, err := repo.Proposals(ctx, q)
					agree(fmt.Sprintf("proposals %v %v limit %d page %d", deref(st), deref(typ), limit, page), got, want, err)
					if limit == 0 || len(want) < limit {
						break
					}
					last := want[len(want)-1]
					q.After = &domain.Position{CreatedAt: last.CreatedAt, ID: last.ID}
				}
			}
		}
	}
	counts := map[domain.ProposalStatus]int64{}
	for _, st := range domain.ProposalStatuses {
		counts[st] = 0
	}
	for _, p := range proposals {
		counts[p.Status]++
	}
	got, err := repo.CountProposals(ctx)
	agree("counts", got, counts, err)
	for _, now := range []time.Time{at, at.Add(5 * 24 * time.Hour), at.Add(30 * 24 * time.Hour)} {
		due := map[string]domain.Proposal{}
		for id, p := range proposals {
			if p.Status == domain.Discussion && !p.DiscussionEndsAt.After(now) || p.Status == domain.Voting && !p.VotingEndsAt.After(now) ||
				p.Status == domain.Passed && p.Recall != nil && !p.Recall.Applied {
				due[id] = p
			}
		}
		got, err := repo.DueProposals(ctx, now)
		agree(fmt.Sprintf("due at %v", now), byID(got), due, err)
	}
	for _, st := range []*domain.ElectionStatus{nil, ptr(domain.Nominating), ptr(domain.Closed)} {
		for _, role := range []*domain.Office{nil, ptr(domain.Chief), ptr(domain.Land), ptr(domain.Embassy)} {
			q := domain.ElectionQuery{Status: st, Role: role}
			got, err := repo.Elections(ctx, q)
			agree(fmt.Sprintf("elections %v %v", deref(st), deref(role)), got, expectedElections(elections, q), err)
		}
	}
	first := slices.MinFunc(elections, func(a, b domain.Election) int { return a.OpenedAt.Compare(b.OpenedAt) }).OpenedAt
	ga, gok, err := repo.FirstElectionAt(ctx)
	agree("first election", fmt.Sprint(ga, gok), fmt.Sprint(first, true), err)
}

// expectedProposals is the page q reads of the stored proposals, by brute
// force: newest created_at first, then the greater id.
func expectedProposals(all map[string]domain.Proposal, q domain.ProposalQuery) []domain.Proposal {
	out := []domain.Proposal{}
	for _, p := range all {
		if q.Status != nil && p.Status != *q.Status || q.Type != nil && p.Type != *q.Type {
			continue
		}
		if a := q.After; a != nil && (p.CreatedAt.After(a.CreatedAt) || p.CreatedAt.Equal(a.CreatedAt) && p.ID >= a.ID) {
			continue
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b domain.Proposal) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out
}

// expectedElections is the election list q reads, by brute force: newest
// opening first, then the greater id.
func expectedElections(all []domain.Election, q domain.ElectionQuery) []domain.Election {
	out := []domain.Election{}
	for _, e := range all {
		if (q.Status == nil || e.Status == *q.Status) && (q.Role == nil || e.Role == *q.Role) {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b domain.Election) int {
		if c := b.OpenedAt.Compare(a.OpenedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	return out
}

func ptr[T any](v T) *T { return &v }

func ptrs[T any](vs []T) []*T {
	out := make([]*T, len(vs))
	for i := range vs {
		out[i] = &vs[i]
	}
	return out
}

// deref names a filter: its value, or "any".
func deref[T any](v *T) string {
	if v == nil {
		return "any"
	}
	return fmt.Sprint(*v)
}

func byID(ps []domain.Proposal) map[string]domain.Proposal {
	out := map[string]domain.Proposal{}
	for _, p := range ps {
		out[p.ID] = p
	}
	return out
}

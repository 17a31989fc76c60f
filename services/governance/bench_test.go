package governance_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/governance/internal/domain"
	"sharedworld.dev/services/governance/internal/messages"
	"sharedworld.dev/services/governance/internal/store"
)

// BenchmarkBallotsOverHTTP casts ballots through the production router
// (auth, citizen admission, decode, seal, the proposal's one write with its
// vote.cast event), each by another citizen, 200 ballots per proposal.
//
//	go test -run '^$' -bench BallotsOverHTTP -benchtime 2000x .
func BenchmarkBallotsOverHTTP(b *testing.B) {
	w := newWorld(b, 1_000_000)
	const perProposal = 200
	voters := make([]testkit.Agent, perProposal)
	for i := range voters {
		voters[i] = w.kit.NewAgent(fmt.Sprintf("voter-%d", i), nil)
		w.kit.Register(voters[i])
	}
	var ids []string
	for i := 0; i*perProposal < b.N; i++ {
		ids = append(ids, w.propose(b, voters[i%perProposal], "emergency")["proposal_id"].(string))
		if (i+1)%3 == 0 {
			w.at(w.clock.Now().Add(24 * time.Hour)) // the proposers' daily limit
		}
	}
	b.ResetTimer()
	began := time.Now()
	for i := range b.N {
		r := w.vote(b, voters[i%perProposal], ids[i/perProposal], "for")
		if r.Status != http.StatusCreated {
			b.Fatalf("ballot %d: %d %s", i, r.Status, r.Raw)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(began).Seconds(), "ballots/s")
}

// BenchmarkCheck measures one governance check with 10,000 open proposals:
// when none is due (the hourly check of a quiet hour), and when all 10,000
// open their voting at once (the worst hour).
//
//	go test -run '^$' -bench Check -benchtime 1x .
func BenchmarkCheck(b *testing.B) {
	const open = 10_000
	for _, due := range []bool{false, true} {
		b.Run(fmt.Sprintf("open=%d/all_due=%v", open, due), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				w := newWorld(b, 1_000_000)
				seed(b, w, open)
				if due {
					w.at(start.Add(72 * time.Hour))
				}
				b.StartTimer()
				ts, err := w.svc.Check(context.Background())
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				if want := map[bool]int{false: 0, true: open}[due]; len(ts) != want {
					b.Fatalf("%d transitions, want %d", len(ts), want)
				}
			}
		})
	}
}

// seed stores n standard proposals made at start straight through the
// store, through the adapter the service uses in the kit's mode: on an
// exclusive database the mirrored one, whose writes reach the service's
// in-memory copy (one copy per database handle).
func seed(b *testing.B, w *world, n int) {
	b.Helper()
	var st domain.Repository = store.New(w.kit.DB, messages.Encode, nil)
	if w.kit.DB.Exclusive() {
		st = store.NewMirrored(w.kit.DB, messages.Encode, nil)
	}
	d := domain.Draft{Type: domain.Standard, Title: "t", Body: "b"}
	for i := range n {
		by := fmt.Sprintf("emb_seed%d", i/3)
		if _, err := st.Propose(context.Background(), by, "2026-11-22", []int{1, 2, 3}, func(id string) (*domain.Proposal, domain.ProposalCreated) {
			return domain.NewProposal(id, d, by, start, 0)
		}); err != nil {
			b.Fatal(err)
		}
	}
}

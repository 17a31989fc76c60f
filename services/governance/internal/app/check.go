package app

import (
	"container/heap"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"sharedworld.dev/services/governance/internal/domain"
)

// LeaseTTL bounds how long a crashed check keeps others out.
const LeaseTTL = 2 * time.Minute

// Check applies every transition that is due at the world's now, in
// deadline order, each at its own deadline's semantics, so a late check
// ends where on-time checks would have. It holds the lease while it runs:
// a check that finds the lease held does nothing and returns
// domain.ErrLeaseHeld. Every step re-decides on the stored state, so a
// repeated or interrupted check never applies a transition twice.
func (a *App) Check(ctx context.Context) ([]domain.Transition, error) {
	began := time.Now()
	var b [8]byte
	_, _ = rand.Read(b[:])
	holder := hex.EncodeToString(b[:])
	now := a.now()
	if err := a.lease.Acquire(ctx, holder, now, LeaseTTL); err != nil {
		if errors.Is(err, domain.ErrLeaseHeld) {
			a.obs.CheckFoundLeaseHeld()
		}
		return nil, err
	}
	defer func() {
		if err := a.lease.Release(context.WithoutCancel(ctx), holder); err != nil {
			a.log.Warn("governance check: release lease", slog.String("error", err.Error()))
		}
	}()
	r := &run{app: a, now: now, done: []domain.Transition{}}
	err := r.apply(ctx)

	if err != nil {
		a.obs.CheckFailed()
		return r.done, fmt.Errorf("governance check: %w", err)
	}
	a.obs.CheckSucceeded(time.Now(), time.Since(began), r.done)
	go a.countProposals(context.WithoutCancel(ctx))
	return r.done, nil
}

// countProposals refreshes the proposals-by-status gauge after a check,
// off the check's path: on the embedded backend each count scans the
// collection, which would double a quiet check's time. One runs at a time.
func (a *App) countProposals(ctx context.Context) {
	if !a.counting.CompareAndSwap(false, true) {
		return
	}
	defer a.counting.Store(false)
	counts, err := a.repo.CountProposals(ctx)
	if err != nil {
		return
	}
	a.obs.ProposalsCounted(counts)
}

// run is one check: a queue of due work ordered by domain.Due.Before.
type run struct {
	app    *App
	now    time.Time
	living int64
	queue  dueQueue
	done   []domain.Transition
}

func (r *run) push(d domain.Due) {
	if !d.At.After(r.now) {
		heap.Push(&r.queue, d)
	}
}

func (r *run) record(kind, id string, from, to any, at time.Time) {
	r.done = append(r.done, domain.Transition{Kind: kind, ID: id, From: fmt.Sprint(from), To: fmt.Sprint(to), At: at})
}

func (r *run) apply(ctx context.Context) error {
	var err error
	if r.living, err = r.app.citizens.Living(ctx); err != nil {
		return err
	}
	if err := r.seed(ctx); err != nil {
		return err
	}
	for r.queue.Len() > 0 {
		d := heap.Pop(&r.queue).(domain.Due)
		if err := r.step(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

// seed queues everything already due in storage.
func (r *run) seed(ctx context.Context) error {
	repo := r.app.repo
	due, err := repo.DueProposals(ctx, r.now)
	if err != nil {
		return err
	}
	for _, p := range due {
		if at, open := p.NextDeadline(); open {
			r.push(domain.Due{At: at, Step: domain.StepProposal, ID: p.ID})
		} else if p.Recall != nil && !p.Recall.Applied && p.Status == domain.Passed {
			r.push(domain.Due{At: p.DecidedAt, Step: domain.StepRecall, ID: p.ID})
		}
	}
	for _, s := range []domain.ElectionStatus{domain.Nominating, domain.Balloting} {
		es, err := repo.Elections(ctx, domain.ElectionQuery{Status: &s})
		if err != nil {
			return err
		}
		for _, e := range es {
			at, _ := e.NextDeadline()
			r.push(domain.Due{At: at, Step: domain.StepElection, ID: e.ID})
		}
	}
	first, started, err := repo.FirstElectionAt(ctx)
	if err != nil {
		return err
	}
	if !started && r.living >= r.app.Trigger {
		first, started = r.now, true
	}
	offices, err := repo.Offices(ctx)
	if err != nil {
		return err
	}
	for _, o := range offices {
		if o.Current != nil {
			r.push(domain.Due{At: o.Current.End, Step: domain.StepTerm, ID: string(o.Role)})
		}
		if o.OpenElection != "" {
			e, err := repo.Election(ctx, o.OpenElection)
			if err != nil {
				return err
			}
			if e.Status == domain.Closed {
				r.push(domain.Due{At: e.ClosedAt, Step: domain.StepInstall, ID: e.ID})
			}
		}
		if at, needs := o.NeedsElection(first); needs && started {
			r.push(domain.Due{At: at, Step: domain.StepOpen, ID: string(o.Role)})
		}
	}
	return nil
}

func (r *run) step(ctx context.Context, d domain.Due) error {
	switch d.Step {
	case domain.StepProposal:
		return r.advanceProposal(ctx, d.ID)
	case domain.StepRecall:
		return r.applyRecall(ctx, d.ID)
	case domain.StepTerm:
		return r.expireTerm(ctx, domain.Office(d.ID))
	case domain.StepElection:
		return r.advanceElection(ctx, d.ID)
	case domain.StepInstall:
		return r.install(ctx, d.ID)
	case domain.StepOpen:
		return r.open(ctx, domain.Office(d.ID), d.At)
	}
	return nil
}

func (r *run) advanceProposal(ctx context.Context, id string) error {
	var ev domain.ProposalStatusChanged
	var moved bool
	p, err := r.app.repo.ChangeProposal(ctx, id, func(p *domain.Proposal) ([]domain.Event, error) {
		ev, moved = p.Advance(r.now, r.living)
		if !moved {
			return nil, domain.ErrNoChange
		}
		return []domain.Event{ev}, nil
	})
	if err != nil || !moved {
		return err
	}
	r.record(domain.KindProposal, id, ev.From, p.Status, ev.At)
	if at, open := p.NextDeadline(); open {
		r.push(domain.Due{At: at, Step: domain.StepProposal, ID: id})
	} else if p.Status == domain.Passed && p.Recall != nil {
		r.push(domain.Due{At: p.DecidedAt, Step: domain.StepRecall, ID: id})
	}
	return nil
}

func (r *run) applyRecall(ctx context.Context, id string) error {
	p, err := r.app.repo.Proposal(ctx, id)
	if err != nil || p.Recall == nil || p.Recall.Applied || p.Status != domain.Passed {
		return err
	}
	target, at := *p.Recall, p.DecidedAt
	var ended bool
	if _, err := r.app.repo.ChangeOffice(ctx, target.Role, func(o *domain.OfficeState) ([]domain.Event, error) {
		ev, ok := o.ApplyRecall(target, at)
		if ended = ok; !ok {
			return nil, domain.ErrNoChange
		}
		return []domain.Event{ev}, nil
	}); err != nil {
		return err
	}
	if ended {
		r.record(domain.KindSteward, target.AgentID, "serving", domain.EndRecalled, at)
		r.push(domain.Due{At: at, Step: domain.StepOpen, ID: string(target.Role)})
	}
	_, err = r.app.repo.ChangeProposal(ctx, id, func(p *domain.Proposal) ([]domain.Event, error) {
		if p.Recall == nil || p.Recall.Applied {
			return nil, domain.ErrNoChange
		}
		p.Recall.Applied = true
		p.Version++
		return nil, nil
	})
	return err
}

func (r *run) expireTerm(ctx context.Context, role domain.Office) error {
	var ev domain.StewardTermEnded
	var ended bool
	if _, err := r.app.repo.ChangeOffice(ctx, role, func(o *domain.OfficeState) ([]domain.Event, error) {
		ev, ended = o.Expire(r.now)
		if !ended {
			return nil, domain.ErrNoChange
		}
		return []domain.Event{ev}, nil
	}); err != nil || !ended {
		return err
	}
	r.record(domain.KindSteward, ev.AgentID, "serving", domain.EndExpired, ev.EndedAt)
	r.push(domain.Due{At: ev.EndedAt, Step: domain.StepOpen, ID: string(role)})
	return nil
}

func (r *run) advanceElection(ctx context.Context, id string) error {
	var ev domain.ElectionStatusChanged
	var moved bool
	e, err := r.app.repo.ChangeElection(ctx, id, func(e *domain.Election) ([]domain.Event, error) {
		ev, moved = e.Advance(r.now, r.living)
		if !moved {
			return nil, domain.ErrNoChange
		}
		return []domain.Event{ev}, nil
	})
	if err != nil || !moved {
		return err
	}
	r.record(domain.KindElection, id, ev.From, e.Status, ev.At)
	if at, open := e.NextDeadline(); open {
		r.push(domain.Due{At: at, Step: domain.StepElection, ID: id})
	} else {
		r.push(domain.Due{At: e.ClosedAt, Step: domain.StepInstall, ID: id})
	}
	return nil
}

func (r *run) install(ctx context.Context, id string) error {
	e, err := r.app.repo.Election(ctx, id)
	if err != nil {
		return err
	}
	var elected *domain.StewardElected
	var changed bool
	if _, err := r.app.repo.ChangeOffice(ctx, e.Role, func(o *domain.OfficeState) ([]domain.Event, error) {
		elected, changed = o.Install(*e)
		if !changed {
			return nil, domain.ErrNoChange
		}
		if elected == nil {
			return nil, nil
		}
		return []domain.Event{*elected}, nil
	}); err != nil || !changed {
		return err
	}
	if elected == nil {
		r.push(domain.Due{At: e.ClosedAt, Step: domain.StepOpen, ID: string(e.Role)})
		return nil
	}
	r.record(domain.KindSteward, elected.Term.AgentID, "vacant", "serving", elected.Term.Start)
	r.push(domain.Due{At: elected.Term.End, Step: domain.StepTerm, ID: string(e.Role)})
	return nil
}

// open opens an election for an empty office at at (the moment it
// emptied), stores it once (a retry finds the same election) and links it.
func (r *run) open(ctx context.Context, role domain.Office, at time.Time) error {
	e, err := r.app.repo.OpenElection(ctx, role, at, func(id string) (*domain.Election, domain.ElectionOpened) {
		return domain.OpenElection(id, role, at)
	})
	if err != nil {
		return err
	}
	var linked bool
	if _, err := r.app.repo.ChangeOffice(ctx, role, func(o *domain.OfficeState) ([]domain.Event, error) {
		if linked = o.Link(e.ID); !linked {
			return nil, domain.ErrNoChange
		}
		return nil, nil
	}); err != nil || !linked {
		return err
	}
	r.record(domain.KindElection, e.ID, "none", e.Status, at)
	if at, open := e.NextDeadline(); open {
		r.push(domain.Due{At: at, Step: domain.StepElection, ID: e.ID})
	}
	return nil
}

// dueQueue is a min-heap of due work.
type dueQueue []domain.Due

func (q dueQueue) Len() int           { return len(q) }
func (q dueQueue) Less(i, j int) bool { return q[i].Before(q[j]) }
func (q dueQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *dueQueue) Push(x any)        { *q = append(*q, x.(domain.Due)) }
func (q *dueQueue) Pop() any {
	old := *q
	d := old[len(old)-1]
	*q = old[:len(old)-1]
	return d
}

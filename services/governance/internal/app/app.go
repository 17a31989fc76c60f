// Package app holds the governance use cases: propose, recall, vote,
// nominate and vote in elections, the lists, and the governance check.
// Each asks the domain what to do and the repository to store it.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/governance/internal/ballot"
	"sharedworld.dev/services/governance/internal/domain"
)

// DailyProposals is how many proposals (recalls included) a citizen may
// make per UTC day of the world's clock (CONTRACT §7).
const DailyProposals = 3

// Citizens answers who is a living citizen.
type Citizens interface {
	domain.Population
	IsLiving(ctx context.Context, agentID string) (bool, error)
}

// App is the governance application.
type App struct {
	repo     domain.Repository
	citizens Citizens
	lease    domain.Lease
	box      *ballot.Box
	clock    clock.Clock
	log      *slog.Logger
	obs      Observer
	// Trigger is the population at which the first elections open.
	Trigger  int64
	counting atomic.Bool
}

// New wires the application.
func New(repo domain.Repository, citizens Citizens, lease domain.Lease, box *ballot.Box, clk clock.Clock, trigger int64, log *slog.Logger, obs Observer) *App {
	if trigger < 1 {
		trigger = domain.DefaultTriggerSize
	}
	return &App{repo: repo, citizens: citizens, lease: lease, box: box, clock: clk, log: log, obs: obs, Trigger: trigger}
}

func (a *App) now() time.Time { return clock.Stored(a.clock.Now()) }

// Propose stores a citizen's proposal; a refused request takes no slot.
func (a *App) Propose(ctx context.Context, agentID string, req domain.ProposeRequest) (domain.Proposal, error) {
	d, err := domain.ParseProposal(req)
	if err != nil {
		return domain.Proposal{}, err
	}
	return a.store(ctx, agentID, d)
}

func (a *App) store(ctx context.Context, agentID string, d domain.Draft) (domain.Proposal, error) {
	now := a.now()
	var living int64
	if d.Type.Rules().Discussion == 0 {
		n, err := a.citizens.Living(ctx)
		if err != nil {
			return domain.Proposal{}, err
		}
		living = n
	}
	p, err := a.repo.Propose(ctx, agentID, clock.UTCDay(now).Format(time.DateOnly), []int{1, 2, 3}, func(id string) (*domain.Proposal, domain.ProposalCreated) {
		return domain.NewProposal(id, d, agentID, now, living)
	})
	if errors.Is(err, domain.ErrSlotsTaken) {
		next := clock.UTCDay(now).Add(24 * time.Hour)
		return domain.Proposal{}, problem.RateLimited(fmt.Sprintf("You have made %d proposals today, the daily limit.", DailyProposals),
			"Wait until the next UTC day (see Retry-After), or support an open proposal by voting on it.", max(next.Sub(now).Round(time.Second), time.Second))
	}
	return p, err
}

// RecallRequest names the steward to recall.
type RecallRequest struct {
	Role, StewardAgentID, Reason *string
}

// Recall proposes to end a steward's term.
func (a *App) Recall(ctx context.Context, agentID string, req RecallRequest) (domain.Proposal, error) {
	reason, err := domain.ParseProposal(domain.ProposeRequest{Title: ptr("recall"), Body: req.Reason})
	if err != nil {
		return domain.Proposal{}, reasonProblem(err)
	}
	if (req.Role == nil || *req.Role == "") && (req.StewardAgentID == nil || *req.StewardAgentID == "") {
		return domain.Proposal{}, problem.Invalid("Name the steward to recall.", `Send "role" (chief, land, peace, archive or embassy) or "steward_agent_id".`)
	}
	var role *domain.Office
	if req.Role != nil && *req.Role != "" {
		r, err := domain.ParseOffice(*req.Role)
		if err != nil {
			return domain.Proposal{}, err
		}
		role = &r
	}
	offices, err := a.repo.Offices(ctx)
	if err != nil {
		return domain.Proposal{}, err
	}
	for _, o := range offices {
		c := o.Current
		if c == nil || (role != nil && o.Role != *role) || (req.StewardAgentID != nil && *req.StewardAgentID != "" && c.AgentID != *req.StewardAgentID) {
			continue
		}
		d := domain.Draft{Type: domain.Recall, Body: reason.Body,
			Title:  fmt.Sprintf("Recall the %s steward %s", o.Role, c.AgentID),
			Recall: &domain.RecallTarget{Role: o.Role, AgentID: c.AgentID, TermStart: c.Start}}
		return a.store(ctx, agentID, d)
	}
	return domain.Proposal{}, problem.NotFound("No serving steward matches.",
		"See who serves with GET /api/world/governance/stewards; recall by their role or agent_id.")
}

// reasonProblem renames the body checks for the recall's reason field.
func reasonProblem(err error) error {
	pe, ok := problem.As(err)
	if !ok {
		return err
	}
	if pe.Kind == problem.KindValidation {
		return problem.Validation("reason is too long.", fmt.Sprintf("Shorten reason to at most %d characters.", domain.MaxBodyLength))
	}
	return problem.Invalid(`Field "reason" is missing or empty.`, `Send "reason" as a non-empty string saying why the steward should go.`)
}

func ptr[T any](v T) *T { return &v }

// Vote casts a citizen's ballot. The choice is sealed before the write
// and only moves the counters; nothing logs it.
func (a *App) Vote(ctx context.Context, voter citizens.Citizen, rawID, rawChoice string) (domain.VoteCast, error) {
	agentID := voter.AgentID
	choice, err := domain.ParseChoice(rawChoice)
	if err != nil {
		return domain.VoteCast{}, err
	}
	id, err := domain.ParseProposalID(rawID)
	if err != nil {
		return domain.VoteCast{}, err
	}
	now := a.now()
	b := domain.Ballot{Voter: agentID, VoteID: domain.NewVoteID(), CastAt: now}
	b.Sealed = a.box.Seal(string(choice), id, agentID, b.VoteID)
	var cast domain.VoteCast
	_, err = a.repo.ChangeProposal(ctx, id, func(p *domain.Proposal) ([]domain.Event, error) {
		ev, err := p.Cast(b, choice, voter.RegisteredAt)
		if err != nil {
			return nil, err
		}
		cast = ev
		return []domain.Event{ev}, nil
	})
	if err == nil {
		a.obs.BallotCast()
	}
	return cast, err
}

// Get returns one proposal; a malformed or unknown id is 404.
func (a *App) Get(ctx context.Context, rawID string) (domain.Proposal, error) {
	id, err := domain.ParseProposalID(rawID)
	if err != nil {
		return domain.Proposal{}, err
	}
	p, err := a.repo.Proposal(ctx, id)
	if err != nil {
		return domain.Proposal{}, err
	}
	return p.Snapshot(), nil
}

// List returns one page of proposals and the position after it (nil on
// the last page); a limit of 0 returns every proposal.
func (a *App) List(ctx context.Context, q domain.ProposalQuery) ([]domain.Proposal, *domain.Position, error) {
	want := q.Limit
	if want > 0 {
		q.Limit++
	}
	ps, err := a.repo.Proposals(ctx, q)
	if err != nil || want == 0 || len(ps) <= want {
		return ps, nil, err
	}
	ps = ps[:want]
	last := ps[want-1]
	return ps, &domain.Position{CreatedAt: last.CreatedAt, ID: last.ID}, nil
}

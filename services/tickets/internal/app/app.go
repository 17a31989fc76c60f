// Package app holds the tickets use cases: file, look up, list, upvote and
// triage. Each is a short sequence: ask the domain, then the repository.
package app

import (
	"context"
	"errors"
	"log/slog"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/services/tickets/internal/domain"
)

// App is the tickets application.
type App struct {
	repo  domain.Repository
	clock clock.Clock
	limit domain.DailyLimit
	log   *slog.Logger
}

// New wires the application.
func New(repo domain.Repository, clk clock.Clock, limit domain.DailyLimit, log *slog.Logger) *App {
	return &App{repo: repo, clock: clk, limit: limit, log: log}
}

// File files a ticket for a citizen. The request is validated before
// anything is stored, so a refused request takes no daily slot.
func (a *App) File(ctx context.Context, agentID string, req domain.FileRequest) (domain.Snapshot, error) {
	filing, err := domain.ParseFiling(req)
	if err != nil {
		return domain.Snapshot{}, err
	}
	now := a.clock.Now()
	snap, err := a.repo.File(ctx, agentID, domain.Day(now), a.limit.FreeSlots(0), func(id domain.TicketID) (*domain.Ticket, domain.Filed) {
		return filing.Ticket(id, agentID, now)
	})
	if errors.Is(err, domain.ErrSlotsTaken) {
		return domain.Snapshot{}, a.limit.Exceeded(now)
	}
	return snap, err
}

// Get returns one ticket; a malformed or unknown id is 404.
func (a *App) Get(ctx context.Context, rawID string) (domain.Snapshot, error) {
	id, err := domain.ParseTicketID(rawID)
	if err != nil {
		return domain.Snapshot{}, err
	}
	return a.repo.Get(ctx, id)
}

// Upvote adds a citizen's upvote and returns the ticket after it.
func (a *App) Upvote(ctx context.Context, rawID, agentID string) (domain.Snapshot, error) {
	id, err := domain.ParseTicketID(rawID)
	if err != nil {
		return domain.Snapshot{}, err
	}
	now := a.clock.Now()
	return a.repo.Change(ctx, id, func(t *domain.Ticket) (domain.Event, error) {
		return t.Upvote(agentID, now)
	})
}

// Triage applies the ambassador's status change. The request is checked
// before the ticket is looked up, so a bad status is 400 even for an
// unknown ticket.
func (a *App) Triage(ctx context.Context, rawID string, req domain.TriageRequest) (domain.Snapshot, error) {
	tr, err := domain.ParseTriage(req)
	if err != nil {
		return domain.Snapshot{}, err
	}
	id, err := domain.ParseTicketID(rawID)
	if err != nil {
		return domain.Snapshot{}, err
	}
	now := a.clock.Now()
	return a.repo.Change(ctx, id, func(t *domain.Ticket) (domain.Event, error) {
		return t.Apply(tr, now)
	})
}

// Page is one page of the ticket list.
type Page struct {
	Tickets []domain.Snapshot
	Counts  domain.Counts
	// Next is the position to continue after; nil on the last page.
	Next *domain.Position
}

// List returns one page of tickets, newest first, and the counts over all
// tickets. It asks for one ticket more than the page to know whether a next
// page exists without a second query.
func (a *App) List(ctx context.Context, filter domain.ListFilter, after *domain.Position, limit int) (Page, error) {
	type listed struct {
		tickets []domain.Snapshot
		err     error
	}
	done := make(chan listed, 1)
	go func() {
		ts, err := a.repo.List(ctx, domain.ListQuery{Filter: filter, After: after, Limit: limit + 1})
		done <- listed{ts, err}
	}()
	counts, cerr := a.repo.Counts(ctx)
	l := <-done
	if l.err != nil {
		return Page{}, l.err
	}
	if cerr != nil {
		return Page{}, cerr
	}
	p := Page{Tickets: l.tickets, Counts: counts}
	if len(p.Tickets) > limit {
		p.Tickets = p.Tickets[:limit]
		pos := p.Tickets[limit-1].Position()
		p.Next = &pos
	}
	return p, nil
}

package app

import (
	"context"
	"errors"

	"sharedworld.dev/services/messaging/internal/domain"
)

// WriteInbox sends a citizen's message to the ambassador. The type is
// checked against the sender's office and the text before the day's slot
// is taken, so a refused request never counts toward the daily limit.
func (a *App) WriteInbox(ctx context.Context, agentID string, req domain.InboxRequest) (domain.InboxMessage, error) {
	now := a.now()
	steward, err := a.repos.Stewards.IsSteward(ctx, agentID, now)
	if err != nil {
		return domain.InboxMessage{}, err
	}
	letter, err := domain.ParseInbox(req, steward)
	if err != nil {
		return domain.InboxMessage{}, err
	}
	m, err := a.repos.Inbox.Receive(ctx, agentID, domain.Day(now), func(id string) (domain.InboxMessage, domain.InboxReceived) {
		return domain.InboxMessage{ID: id, From: agentID, Subject: letter.Subject, Body: letter.Body, Type: letter.Type, CreatedAt: now},
			domain.InboxReceived{ID: id, From: agentID, Type: letter.Type, At: now}
	})
	if errors.Is(err, domain.ErrSlotTaken) {
		return domain.InboxMessage{}, domain.InboxDailyExceeded(now)
	}
	if err != nil {
		return domain.InboxMessage{}, err
	}
	a.obs.InboxBacklogChanged(1)
	return m, nil
}

// InboxPage is one page of inbox messages.
type InboxPage struct {
	Messages []domain.InboxMessage
	Next     *domain.Position
}

// Inbox lists inbox messages newest first: one citizen's when from is set,
// all of them for the ambassador.
func (a *App) Inbox(ctx context.Context, from string, after *domain.Position, limit int) (InboxPage, error) {
	ms, err := a.repos.Inbox.List(ctx, from, after, limit+1)
	if err != nil {
		return InboxPage{}, err
	}
	var p InboxPage
	if len(ms) > limit {
		ms = ms[:limit]
		last := ms[limit-1]
		p.Next = &domain.Position{At: last.CreatedAt, ID: last.ID}
	}
	p.Messages = ms
	return p, nil
}

// Reply records the ambassador's answer; the citizen is notified through
// inbox.replied.
func (a *App) Reply(ctx context.Context, id, reply string) (domain.InboxMessage, error) {
	if !domain.ValidID(domain.MessagePrefix, id) {
		return domain.InboxMessage{}, domain.ErrInboxNotFound(id)
	}
	now := a.now()
	m, err := a.repos.Inbox.Answer(ctx, id, func(m *domain.InboxMessage) (domain.InboxReplied, error) {
		if err := m.Answer(reply, now); err != nil {
			return domain.InboxReplied{}, err
		}
		return domain.InboxReplied{ID: m.ID, To: m.From, At: now}, nil
	})
	if err != nil {
		return domain.InboxMessage{}, err
	}
	a.obs.InboxBacklogChanged(-1)
	return m, nil
}

// SyncBacklog sets the backlog gauge from the store (at start).
func (a *App) SyncBacklog(ctx context.Context) error {
	n, err := a.repos.Inbox.Backlog(ctx)
	if err != nil {
		return err
	}
	a.obs.InboxBacklog(n)
	return nil
}

package app

import (
	"context"
	"encoding/json"
	"runtime"
	"sync"

	"sharedworld.dev/pkg/seal"
	"sharedworld.dev/services/messaging/internal/domain"
)

// Send delivers a direct message. Everything is checked before anything is
// written: the fields, then that the recipient and every citizen the
// message is about are living citizens (404 otherwise, nothing stored).
func (a *App) Send(ctx context.Context, from string, req domain.SendRequest) (domain.Message, error) {
	s, err := domain.ParseSend(req)
	if err != nil {
		return domain.Message{}, err
	}
	if err := a.mustLive(ctx, "to_agent_id", s.To); err != nil {
		return domain.Message{}, err
	}
	for _, id := range s.About {
		if err := a.mustLive(ctx, "about_agent_ids", id); err != nil {
			return domain.Message{}, err
		}
	}
	letter, err := json.Marshal(domain.Letter{Subject: s.Subject, Content: s.Content})
	if err != nil {
		return domain.Message{}, err
	}
	now := a.now()
	m, err := a.repos.Messages.Send(ctx, func(id string) (domain.Message, domain.Sent) {
		sealed, _ := a.sealer.Seal(letter, s.EncryptionKey, domain.AAD(id))
		return domain.Message{ID: id, From: from, To: s.To, About: s.About, Subject: s.Subject, Sealed: sealed, SentAt: now},
			domain.Sent{MessageID: id, From: from, To: s.To, SentAt: now}
	})
	if err != nil {
		return domain.Message{}, err
	}
	a.obs.MessageSent()
	return m, nil
}

func (a *App) mustLive(ctx context.Context, field, id string) error {
	ok, err := a.residents.IsLiving(ctx, id)
	if err != nil {
		return err
	}
	if !ok {
		return domain.ErrNoRecipient(field, id)
	}
	return nil
}

// Opened is a listed message with its letter when a key was given: Letter
// is set when the key opened it, WrongKey when it did not.
type Opened struct {
	domain.Message
	Letter   *domain.Letter
	WrongKey bool
}

// MessagePage is one page of a box.
type MessagePage struct {
	Messages []Opened
	Total    int64
	Next     *domain.Position
}

// Messages lists one page of agentID's box, newest first, opening each
// message with key when one is given. A key that does not open a message
// is reported on that message alone; the page is still served.
func (a *App) Messages(ctx context.Context, agentID string, box domain.Box, after *domain.Position, limit int, key string) (MessagePage, error) {
	ms, err := a.repos.Messages.List(ctx, agentID, box, after, limit+1)
	if err != nil {
		return MessagePage{}, err
	}
	total, err := a.repos.Messages.Count(ctx, agentID, box)
	if err != nil {
		return MessagePage{}, err
	}
	var p MessagePage
	p.Total = total
	if len(ms) > limit {
		ms = ms[:limit]
		last := ms[limit-1]
		p.Next = &domain.Position{At: last.SentAt, ID: last.ID}
	}
	p.Messages = make([]Opened, len(ms))
	for i, m := range ms {
		p.Messages[i] = Opened{Message: m}
	}
	if key != "" {
		openAll(a.sealer, p.Messages, key)
	}
	return p, nil
}

// openAll opens the messages in parallel, one key derivation per core at a
// time: Argon2id is meant to be costly, and a page holds up to 100.
func openAll(sealer seal.Sealer, ms []Opened, key string) {
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range ms {
		wg.Add(1)
		sem <- struct{}{}
		go func(o *Opened) {
			defer func() { <-sem; wg.Done() }()
			plain, err := sealer.Open(o.Sealed, key, domain.AAD(o.ID))
			var l domain.Letter
			if err == nil && json.Unmarshal(plain, &l) == nil {
				o.Letter = &l
				return
			}
			o.WrongKey = true
		}(&ms[i])
	}
	wg.Wait()
}

// ReadMessage marks a message read by its recipient, idempotently: the
// first call sets read_at, every later one reports it with already true.
func (a *App) ReadMessage(ctx context.Context, agentID, id string) (domain.Message, bool, error) {
	if !domain.ValidID(domain.MessagePrefix, id) {
		return domain.Message{}, false, domain.ErrMessageNotFound(id)
	}
	now := a.now()
	var already bool
	m, err := a.repos.Messages.MarkRead(ctx, id, func(m *domain.Message) error {
		var err error
		already, err = m.MarkRead(agentID, now)
		if err == nil && already {
			return domain.ErrUnchanged
		}
		return err
	})
	if err != nil {
		return domain.Message{}, false, err
	}
	return m, already, nil
}

package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/seal"
	"sharedworld.dev/services/messaging/internal/domain"
)

// sealedDoc is a seal.Sealed as stored: the ciphertext and what derives
// its key again, never the key.
type sealedDoc struct {
	KDF        string `bson:"kdf"`
	Time       uint32 `bson:"time"`
	MemoryKiB  uint32 `bson:"memory_kib"`
	Threads    uint8  `bson:"threads"`
	Salt       []byte `bson:"salt"`
	Nonce      []byte `bson:"nonce"`
	Ciphertext []byte `bson:"ciphertext"`
}

// messageDoc is a direct message as stored: the content only inside the
// seal, the subject also in the clear (empty on messages stored before).
type messageDoc struct {
	ID      string     `bson:"_id"`
	From    string     `bson:"from_agent_id"`
	To      string     `bson:"to_agent_id"`
	About   []string   `bson:"about_agent_ids"`
	Subject string     `bson:"subject"`
	Sealed  sealedDoc  `bson:"sealed"`
	SentAt  time.Time  `bson:"sent_at"`
	ReadAt  *time.Time `bson:"read_at"`
	Version int64      `bson:"version"`
}

func toMessageDoc(m domain.Message) messageDoc {
	s := m.Sealed
	about := m.About
	if about == nil {
		about = []string{}
	}
	return messageDoc{ID: m.ID, From: m.From, To: m.To, About: about, Subject: m.Subject, SentAt: m.SentAt, ReadAt: m.ReadAt,
		Sealed: sealedDoc{KDF: s.KDF, Time: s.Params.Time, MemoryKiB: s.Params.MemoryKiB, Threads: s.Params.Threads,
			Salt: s.Salt, Nonce: s.Nonce, Ciphertext: s.Ciphertext}}
}

func (d messageDoc) domain() domain.Message {
	s := d.Sealed
	return domain.Message{ID: d.ID, From: d.From, To: d.To, About: d.About, Subject: d.Subject, SentAt: utc(d.SentAt), ReadAt: utcPtr(d.ReadAt),
		Sealed: seal.Sealed{KDF: s.KDF, Params: seal.Params{Time: s.Time, MemoryKiB: s.MemoryKiB, Threads: s.Threads},
			Salt: s.Salt, Nonce: s.Nonce, Ciphertext: s.Ciphertext}}
}

type messageRepo struct{ s *Store }

func (r messageRepo) Send(ctx context.Context, build func(id string) (domain.Message, domain.Sent)) (domain.Message, error) {
	d, err := r.s.messages.Create(ctx, domain.MessagePrefix, func(id string) (messageDoc, []events.Event, error) {
		m, sent := build(id)
		ev, err := r.s.encode(sent)
		if err != nil {
			return messageDoc{}, nil, err
		}
		return toMessageDoc(m), []events.Event{ev}, nil
	})
	if err != nil {
		return domain.Message{}, fmt.Errorf("send message: %w", err)
	}
	return d.domain(), nil
}

func (r messageRepo) MarkRead(ctx context.Context, id string, fn func(*domain.Message) error) (domain.Message, error) {
	d, err := r.s.messages.Update(ctx, id, func(d *messageDoc) ([]events.Event, error) {
		m := d.domain()
		if err := fn(&m); err != nil {
			if errors.Is(err, domain.ErrUnchanged) {
				return nil, mongox.ErrNoChange
			}
			return nil, err
		}
		d.ReadAt = m.ReadAt
		return nil, nil
	})
	switch {
	case errors.Is(err, mongox.ErrNotFound):
		return domain.Message{}, domain.ErrMessageNotFound(id)
	case errors.Is(err, mongox.ErrVersionClash):
		return domain.Message{}, domain.ErrBusy
	case err != nil:
		return domain.Message{}, err
	}
	return d.domain(), nil
}

func boxFilter(agentID string, box domain.Box) bson.M {
	if box == domain.BoxSent {
		return bson.M{"from_agent_id": agentID}
	}
	return bson.M{"to_agent_id": agentID}
}

func (r messageRepo) List(ctx context.Context, agentID string, box domain.Box, after *domain.Position, limit int) ([]domain.Message, error) {
	opts := options.Find().SetSort(newestSort("sent_at")).SetLimit(int64(limit)).SetProjection(bson.M{mongox.OutboxField: 0})
	docs, err := mongox.FindAll[messageDoc](ctx, r.s.messages.Collection(), newestAfter(boxFilter(agentID, box), "sent_at", after), opts)
	if err != nil {
		return nil, fmt.Errorf("list messages: %w", err)
	}
	out := make([]domain.Message, len(docs))
	for i, d := range docs {
		out[i] = d.domain()
	}
	return out, nil
}

func (r messageRepo) Count(ctx context.Context, agentID string, box domain.Box) (int64, error) {
	return r.s.messages.Collection().CountDocuments(ctx, boxFilter(agentID, box))
}

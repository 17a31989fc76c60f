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
	"sharedworld.dev/services/messaging/internal/domain"
)

// inboxDoc is a message to the ambassador. Day is the UTC day it took
// (unique with From: one per citizen per day).
type inboxDoc struct {
	ID        string     `bson:"_id"`
	From      string     `bson:"from_agent_id"`
	Subject   string     `bson:"subject"`
	Body      string     `bson:"body"`
	Type      string     `bson:"type"`
	CreatedAt time.Time  `bson:"created_at"`
	Day       string     `bson:"day"`
	Reply     string     `bson:"reply"`
	RepliedAt *time.Time `bson:"replied_at"`
	Replied   bool       `bson:"replied"`
	Version   int64      `bson:"version"`
}

func (d inboxDoc) domain() domain.InboxMessage {
	return domain.InboxMessage{ID: d.ID, From: d.From, Subject: d.Subject, Body: d.Body, Type: domain.InboxType(d.Type),
		CreatedAt: utc(d.CreatedAt), Reply: d.Reply, RepliedAt: utcPtr(d.RepliedAt)}
}

type inboxRepo struct{ s *Store }

func (r inboxRepo) Receive(ctx context.Context, from, day string, build func(id string) (domain.InboxMessage, domain.InboxReceived)) (domain.InboxMessage, error) {
	d, err := r.s.inbox.Create(ctx, domain.MessagePrefix, func(id string) (inboxDoc, []events.Event, error) {
		m, received := build(id)
		ev, err := r.s.encode(received)
		if err != nil {
			return inboxDoc{}, nil, err
		}
		return inboxDoc{ID: id, From: from, Subject: m.Subject, Body: m.Body, Type: string(m.Type), CreatedAt: m.CreatedAt, Day: day},
			[]events.Event{ev}, nil
	})
	if errors.Is(err, mongox.ErrDuplicate) {
		return domain.InboxMessage{}, domain.ErrSlotTaken
	}
	if err != nil {
		return domain.InboxMessage{}, fmt.Errorf("receive inbox message: %w", err)
	}
	return d.domain(), nil
}

func (r inboxRepo) Answer(ctx context.Context, id string, fn func(*domain.InboxMessage) (domain.InboxReplied, error)) (domain.InboxMessage, error) {
	d, err := r.s.inbox.Update(ctx, id, func(d *inboxDoc) ([]events.Event, error) {
		m := d.domain()
		replied, err := fn(&m)
		if err != nil {
			return nil, err
		}
		ev, err := r.s.encode(replied)
		if err != nil {
			return nil, err
		}
		d.Reply, d.RepliedAt, d.Replied = m.Reply, m.RepliedAt, true
		return []events.Event{ev}, nil
	})
	switch {
	case errors.Is(err, mongox.ErrNotFound):
		return domain.InboxMessage{}, domain.ErrInboxNotFound(id)
	case errors.Is(err, mongox.ErrVersionClash):
		return domain.InboxMessage{}, domain.ErrBusy
	case err != nil:
		return domain.InboxMessage{}, err
	}
	return d.domain(), nil
}

func (r inboxRepo) List(ctx context.Context, from string, after *domain.Position, limit int) ([]domain.InboxMessage, error) {
	filter := bson.M{}
	if from != "" {
		filter["from_agent_id"] = from
	}
	opts := options.Find().SetSort(newestSort("created_at")).SetLimit(int64(limit)).SetProjection(bson.M{mongox.OutboxField: 0})
	docs, err := mongox.FindAll[inboxDoc](ctx, r.s.inbox.Collection(), newestAfter(filter, "created_at", after), opts)
	if err != nil {
		return nil, fmt.Errorf("list inbox: %w", err)
	}
	out := make([]domain.InboxMessage, len(docs))
	for i, d := range docs {
		out[i] = d.domain()
	}
	return out, nil
}

func (r inboxRepo) Backlog(ctx context.Context) (int64, error) {
	return r.s.inbox.Collection().CountDocuments(ctx, bson.M{"replied": false})
}

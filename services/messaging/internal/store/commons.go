package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/messaging/internal/domain"
)

// postDoc is a commons post. SlotKey is the daily slot it took,
// "<agent>|<day>|<slot>", unique: two racing posts cannot take one slot.
// The ambassador's posts take no slot; their key is their own id.
type postDoc struct {
	ID       string    `bson:"_id"`
	Channel  string    `bson:"channel"`
	AgentID  string    `bson:"agent_id"`
	Title    string    `bson:"title"`
	Content  string    `bson:"content"`
	PostedAt time.Time `bson:"posted_at"`
	Day      string    `bson:"day"`
	Slot     int       `bson:"slot"`
	SlotKey  string    `bson:"slot_key"`
	Version  int64     `bson:"version"`
}

func (d postDoc) domain() domain.Post {
	return domain.Post{ID: d.ID, Channel: d.Channel, AgentID: d.AgentID, Title: d.Title, Content: d.Content, PostedAt: utc(d.PostedAt)}
}

type commonsRepo struct{ s *Store }

func (r commonsRepo) Latest(ctx context.Context, agentID string) (*domain.Stamp, error) {
	var d postDoc
	err := r.s.posts.Collection().FindOne(ctx, bson.M{"agent_id": agentID},
		options.FindOne().SetSort(bson.D{{Key: "posted_at", Value: -1}, {Key: "slot", Value: -1}}).
			SetProjection(bson.M{"posted_at": 1, "slot": 1})).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("latest post: %w", err)
	}
	return &domain.Stamp{At: utc(d.PostedAt), Slot: d.Slot}, nil
}

func (r commonsRepo) Post(ctx context.Context, agentID, day string, slot int, build func(id string) (domain.Post, domain.CommonsPosted)) (domain.Post, error) {
	d, err := r.s.posts.Create(ctx, domain.PostPrefix, func(id string) (postDoc, []events.Event, error) {
		p, posted := build(id)
		ev, err := r.s.encode(posted)
		if err != nil {
			return postDoc{}, nil, err
		}
		key := id
		if slot > 0 {
			key = agentID + "|" + day + "|" + strconv.Itoa(slot)
		}
		return postDoc{ID: id, Channel: p.Channel, AgentID: agentID, Title: p.Title, Content: p.Content, PostedAt: p.PostedAt,
			Day: day, Slot: slot, SlotKey: key}, []events.Event{ev}, nil
	})
	if errors.Is(err, mongox.ErrDuplicate) {
		return domain.Post{}, domain.ErrSlotTaken
	}
	if err != nil {
		return domain.Post{}, fmt.Errorf("store post: %w", err)
	}
	return d.domain(), nil
}

func (r commonsRepo) List(ctx context.Context, channel string, after *domain.Position, limit int) ([]domain.Post, error) {
	opts := options.Find().SetSort(newestSort("posted_at")).SetLimit(int64(limit)).SetProjection(bson.M{mongox.OutboxField: 0})
	docs, err := mongox.FindAll[postDoc](ctx, r.s.posts.Collection(), newestAfter(bson.M{"channel": channel}, "posted_at", after), opts)
	if err != nil {
		return nil, fmt.Errorf("list posts: %w", err)
	}
	out := make([]domain.Post, len(docs))
	for i, d := range docs {
		out[i] = d.domain()
	}
	return out, nil
}

func (r commonsRepo) Counts(ctx context.Context) (map[string]int64, error) {
	cur, err := r.s.posts.Collection().Aggregate(ctx, mongo.Pipeline{{{Key: "$group", Value: bson.M{"_id": "$channel", "n": bson.M{"$sum": 1}}}}})
	if err != nil {
		return nil, fmt.Errorf("count posts: %w", err)
	}
	var rows []struct {
		Channel string `bson:"_id"`
		N       int64  `bson:"n"`
	}
	if err := cur.All(ctx, &rows); err != nil {
		return nil, fmt.Errorf("read post counts: %w", err)
	}
	out := map[string]int64{}
	for _, r := range rows {
		out[r.Channel] = r.N
	}
	return out, nil
}

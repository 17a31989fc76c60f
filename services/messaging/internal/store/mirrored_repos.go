package store

import (
	"context"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/services/messaging/internal/domain"
)

// The mirrored repositories are the MongoDB ones with every read but the
// guarded read-for-write answered from the copy; writes go to MongoDB and
// reach the copy through the write hooks (Mirrored.keep).

type mirroredMessages struct {
	messageRepo
	copy *mirrors
}

func (r mirroredMessages) List(_ context.Context, agentID string, box domain.Box, after *domain.Position, limit int) ([]domain.Message, error) {
	return page(r.copy.boxOrder(box), agentID, after, limit, nil, (*messageDoc).domain), nil
}

func (r mirroredMessages) Count(_ context.Context, agentID string, box domain.Box) (int64, error) {
	return count(r.copy.boxOrder(box), agentID, nil), nil
}

type mirroredInbox struct {
	inboxRepo
	copy *mirrors
}

func (r mirroredInbox) List(_ context.Context, from string, after *domain.Position, limit int) ([]domain.InboxMessage, error) {
	if from == "" {
		return page(r.copy.inboxAll, "", after, limit, nil, (*inboxDoc).domain), nil
	}
	return page(r.copy.inboxBySender, from, after, limit, nil, (*inboxDoc).domain), nil
}

func (r mirroredInbox) Backlog(context.Context) (int64, error) {
	return int64(r.copy.backlog.Len()), nil
}

type mirroredCommons struct {
	commonsRepo
	copy *mirrors
}

func (r mirroredCommons) Latest(_ context.Context, agentID string) (*domain.Stamp, error) {
	var st *domain.Stamp
	r.copy.byAuthor.Ascend(func(d *postDoc) bool { return d.AgentID >= agentID }, func(d *postDoc) bool {
		if d.AgentID == agentID {
			st = &domain.Stamp{At: utc(d.PostedAt), Slot: d.Slot}
		}
		return false
	})
	return st, nil
}

// List answers from memory for the seed's channels, the only ones a post
// can name (domain.ParseChannel).
func (r mirroredCommons) List(_ context.Context, channel string, after *domain.Position, limit int) ([]domain.Post, error) {
	o, ok := r.copy.byChannel[channel]
	if !ok {
		return []domain.Post{}, nil
	}
	return page(o, channel, after, limit, nil, (*postDoc).domain), nil
}

func (r mirroredCommons) Counts(context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	for c, o := range r.copy.byChannel {
		if n := o.Len(); n > 0 {
			out[c] = int64(n)
		}
	}
	return out, nil
}

type mirroredStewards struct {
	stewardRepo
	copy *mirrors
}

// IsSteward reads the offices in memory: a handful of rows.
func (r mirroredStewards) IsSteward(_ context.Context, agentID string, now time.Time) (bool, error) {
	now = clock.Stored(now)
	found := false
	r.copy.stewards.Scan(func(d *stewardDoc) bool {
		found = d.AgentID == agentID && !d.Ended && d.TermEnd.After(now)
		return !found
	})
	return found, nil
}

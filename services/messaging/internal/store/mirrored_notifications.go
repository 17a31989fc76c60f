package store

import (
	"context"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/services/messaging/internal/domain"
)

type mirroredNotifications struct {
	notificationRepo
	m *Mirrored
}

// AddBroadcast decides the Seq by the copy: whether the key was broadcast
// and the latest Seq are binary searches, not queries.
func (r mirroredNotifications) AddBroadcast(ctx context.Context, b domain.Broadcast) (bool, error) {
	return r.addBroadcast(ctx, b, r)
}

func (r mirroredNotifications) keyExists(_ context.Context, key string) (bool, error) {
	return r.m.copy.broadcasts.hasKey(key), nil
}

func (r mirroredNotifications) LatestSeq(context.Context) (int64, error) {
	return r.m.copy.broadcasts.latest(), nil
}

func (r mirroredNotifications) JoinedSeq(_ context.Context, t time.Time) (int64, error) {
	return r.m.copy.broadcasts.joined(t), nil
}

func (r mirroredNotifications) Broadcast(_ context.Context, id string) (domain.Broadcast, bool, error) {
	d, ok := r.m.copy.broadcasts.Get(id)
	if !ok {
		return domain.Broadcast{}, false, nil
	}
	return d.domain(), true, nil
}

func (r mirroredNotifications) Broadcasts(_ context.Context, from int64, skip []int64, after *domain.Position, limit int) ([]domain.Broadcast, error) {
	return r.m.copy.broadcasts.page(from, skip, after, limit, r.m.bySeqUpTo), nil
}

func (r mirroredNotifications) Personal(_ context.Context, id string) (domain.Personal, bool, error) {
	d, ok := r.m.copy.personals.Get(id)
	if !ok {
		return domain.Personal{}, false, nil
	}
	return d.domain(), true, nil
}

func (r mirroredNotifications) Personals(_ context.Context, agentID string, unreadAfter *time.Time, after *domain.Position, limit int) ([]domain.Personal, error) {
	if unreadAfter == nil {
		return page(r.m.copy.personalsAll, agentID, after, limit, nil, (*personalDoc).domain), nil
	}
	return page(r.m.copy.unread, agentID, after, limit, madeAfter(*unreadAfter), (*personalDoc).domain), nil
}

func (r mirroredNotifications) UnreadPersonals(_ context.Context, agentID string, after time.Time) (int64, error) {
	return count(r.m.copy.unread, agentID, madeAfter(after)), nil
}

func (r mirroredNotifications) ReadState(_ context.Context, agentID string) (domain.ReadState, error) {
	d, ok := r.m.copy.reads.Get(agentID)
	if !ok {
		return domain.ReadState{AgentID: agentID}, nil
	}
	return d.domain(), nil
}

// madeAfter accepts the notifications made after t (every one when t is
// zero), as unreadFilter does; newest first, it refuses every one after
// the first it refuses.
func madeAfter(t time.Time) func(*personalDoc) bool {
	if t.IsZero() {
		return nil
	}
	t = clock.Stored(t)
	return func(d *personalDoc) bool { return d.CreatedAt.After(t) }
}

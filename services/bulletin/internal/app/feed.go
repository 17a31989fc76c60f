package app

import (
	"context"

	"sharedworld.dev/services/bulletin/internal/domain"
)

// Feed answers the feed's pages and the live stream's catch-up reads.
type Feed struct {
	repo  domain.FeedRepository
	hub   *Hub
	epoch string
}

// NewFeed serves the stored feed; epoch names the current numbering of the
// stream (a rebuild starts a new one).
func NewFeed(s domain.FeedRepository, hub *Hub, epoch string) *Feed {
	return &Feed{repo: s, hub: hub, epoch: epoch}
}

// Epoch is the stream numbering live cursors belong to.
func (f *Feed) Epoch() string { return f.epoch }

// Hub is the live fan-out.
func (f *Feed) Hub() *Hub { return f.hub }

// Page returns up to limit items newest first, after the key when given;
// next is set when more may follow.
func (f *Feed) Page(ctx context.Context, typ domain.FeedType, after *domain.FeedPageKey, limit int) (items []domain.StoredFeedEntry, next *domain.FeedPageKey, err error) {
	items, err = f.repo.Page(ctx, typ, after, limit+1)
	if err != nil {
		return nil, nil, err
	}
	if len(items) > limit {
		items = items[:limit]
		last := items[limit-1]
		next = &domain.FeedPageKey{At: last.Item.At, EventID: last.EventID}
	}
	return items, next, nil
}

// Since returns up to limit items applied after seq, in stream order.
func (f *Feed) Since(ctx context.Context, seq int64, limit int) ([]domain.StoredFeedEntry, error) {
	return f.repo.Since(ctx, seq, limit)
}

// At returns the item stored under seq, if there is one.
func (f *Feed) At(ctx context.Context, seq int64) (domain.StoredFeedEntry, bool, error) {
	entries, err := f.repo.Since(ctx, seq-1, 1)
	if err != nil || len(entries) == 0 || entries[0].Seq != seq {
		return domain.StoredFeedEntry{}, false, err
	}
	return entries[0], true, nil
}

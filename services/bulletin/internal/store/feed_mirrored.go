package store

import (
	"context"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// MirroredFeed is the feed adapter of the embedded default, where this
// process is the database's only writer: the MongoDB adapter, whose inserts
// it keeps in an in-memory copy, answering every read from memory. On
// FerretDB a sorted page would decode the whole feed; here it costs what it
// costs on MongoDB's indexes.
type MirroredFeed struct {
	*Feed
	copy *feedMirror
}

var _ domain.FeedRepository = (*MirroredFeed)(nil)

// NewMirroredFeed keeps the feed as NewFeed does, with the in-memory copy.
// db must be exclusive: another writer's entries would never reach the copy.
func NewMirroredFeed(db *mongox.DB) *MirroredFeed {
	copy := feedMirrorOf(db)
	if copy == nil {
		panic("store.NewMirroredFeed: the database is shared; use NewFeed")
	}
	m := &MirroredFeed{Feed: NewFeed(db), copy: copy}
	m.inserted = copy.put
	return m
}

// EnsureIndexes creates the indexes and loads the stored feed into memory.
func (m *MirroredFeed) EnsureIndexes(ctx context.Context) error {
	if err := m.Feed.EnsureIndexes(ctx); err != nil {
		return err
	}
	return m.load(ctx)
}

// load fills the in-memory feed once (one scan, at start; later calls
// return at once).
func (m *MirroredFeed) load(ctx context.Context) error {
	return m.copy.Load(ctx, func(ctx context.Context) ([]feedDoc, error) {
		return mongox.ScanAll[feedDoc](ctx, m.copy.Mirror, m.coll, nil)
	})
}

// MaxSeq is the last entry of the stream order in memory.
func (m *MirroredFeed) MaxSeq(ctx context.Context) (int64, error) {
	if err := m.load(ctx); err != nil {
		return 0, err
	}
	return m.copy.maxSeq(), nil
}

// Page walks the newest-first order in memory.
func (m *MirroredFeed) Page(ctx context.Context, typ domain.FeedType, after *domain.FeedPageKey, limit int) ([]domain.StoredFeedEntry, error) {
	if err := m.load(ctx); err != nil {
		return nil, err
	}
	return m.copy.page(typ, after, limit), nil
}

// Since walks the stream order in memory.
func (m *MirroredFeed) Since(ctx context.Context, seq int64, limit int) ([]domain.StoredFeedEntry, error) {
	if err := m.load(ctx); err != nil {
		return nil, err
	}
	return m.copy.since(seq, limit), nil
}

// Drop removes the whole feed and empties the copy (a rebuild writes both
// again).
func (m *MirroredFeed) Drop(ctx context.Context) error {
	if err := m.drop(ctx); err != nil {
		return err
	}
	m.copy.Reset(nil)
	return m.EnsureIndexes(ctx)
}

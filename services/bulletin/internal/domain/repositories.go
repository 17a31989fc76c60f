package domain

import (
	"context"
	"errors"
	"time"
)

// The bulletin's repositories: what the use cases need of storage, in the
// domain's terms. The store implements them (one contract test each, run
// against every backend); the service wires the store in.

// AnnouncementRepository keeps the ambassador's announcements, the one
// aggregate the bulletin owns, each stored with the events its changes
// published (state and events in one write).
type AnnouncementRepository interface {
	// Add stores a new announcement under a fresh post_id: build makes it,
	// with its event, from the id drawn (more than once when an id is
	// taken).
	Add(ctx context.Context, build func(postID string) AnnouncementChange) (Announcement, error)
	// Get returns one announcement, or ErrAnnouncementNotFound.
	Get(ctx context.Context, postID string) (Announcement, error)
	// Pinned returns every pinned announcement (one, or none; more only
	// after an interrupted pin, which the next pin repairs).
	Pinned(ctx context.Context) ([]Announcement, error)
	// Update runs change on the stored announcement and stores the result
	// with the events change returns; no events means no change and no
	// write. change may run more than once when another writer changed the
	// announcement first, so it decides from what it is given alone.
	// An unknown postID is ErrAnnouncementNotFound.
	Update(ctx context.Context, postID string, change func(*Announcement) ([]AnnouncementEvent, error)) (Announcement, error)
}

// ProjectionRepository keeps the aggregator's records, one per aggregate.
type ProjectionRepository interface {
	// Save writes r unless the stored record has a higher revision; saved
	// is false when it has (the newer state stays), so a repeated or older
	// event never puts back an older state.
	Save(ctx context.Context, r Record) (saved bool, err error)
	// SaveAll saves records (distinct keys per kind) as Save saves each,
	// in as few writes as the store allows; saved[i] is records[i]'s.
	SaveAll(ctx context.Context, records []Record) (saved []bool, err error)
	// Load hands every stored record to restore.
	Load(ctx context.Context, restore func(Record)) error
}

// StoredFeedEntry is a feed entry with its position in the live stream:
// the sequence number it was applied under.
type StoredFeedEntry struct {
	Seq int64
	FeedEntry
}

// FeedPageKey is a position in the feed's newest-first order: entries
// strictly older come next.
type FeedPageKey struct {
	At      time.Time
	EventID string
}

// ErrFeedSeqTaken means another writer stored a feed entry under a sequence
// number this aggregator handed out: a second aggregator is (or was, until
// a moment ago) writing the feed. The one that meets it has stale memory and
// must load the store afresh before it writes again.
var ErrFeedSeqTaken = errors.New("feed sequence number already used by another writer")

// FeedRepository keeps every feed entry, keyed by the id of the event that
// made it.
type FeedRepository interface {
	// Insert stores e under seq unless an entry of its event is stored
	// (inserted false: the event was applied before, under its own seq).
	Insert(ctx context.Context, e FeedEntry, seq int64) (inserted bool, err error)
	// InsertAll stores entries as Insert stores each, in one write;
	// inserted[i] is entries[i]'s (an entry already stored under its own
	// seq, by an earlier attempt, counts as inserted).
	InsertAll(ctx context.Context, entries []StoredFeedEntry) (inserted []bool, err error)
	// MaxSeq is the highest sequence number used, 0 for an empty feed.
	MaxSeq(ctx context.Context) (int64, error)
	// Page returns up to limit entries newest first, after the key when
	// given, of one type when given.
	Page(ctx context.Context, typ FeedType, after *FeedPageKey, limit int) ([]StoredFeedEntry, error)
	// Since returns up to limit entries applied after seq, in stream order.
	Since(ctx context.Context, seq int64, limit int) ([]StoredFeedEntry, error)
}

// WorldFacts keeps the world's own facts: the day it was founded and the
// feed's epoch (the numbering of the live stream, renewed by a rebuild).
type WorldFacts interface {
	// Founded returns the founding time, recording now on the first start;
	// it never changes afterwards.
	Founded(ctx context.Context, now time.Time) (time.Time, error)
	// Epoch returns the feed's epoch, creating one if there is none.
	Epoch(ctx context.Context) (string, error)
	// RenewEpoch gives the feed a new epoch.
	RenewEpoch(ctx context.Context) error
}

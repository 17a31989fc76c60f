package store

import (
	"cmp"
	"strings"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// feedMirror is the feed in memory, MirroredFeed's copy, in the two orders
// the feed is read in: (at, _id) for the newest-first pages, which the
// "newest" and "type_newest" indexes serve on MongoDB, and seq for the live
// stream.
type feedMirror struct {
	*mongox.Mirror[feedDoc]
	newest *mongox.Order[feedDoc]
	bySeq  *mongox.Order[feedDoc]
}

// feedMirrorOf is db's feed in memory, nil unless db is exclusive.
func feedMirrorOf(db *mongox.DB) *feedMirror {
	mm := mongox.MirrorOf(db, "feed", func(d *feedDoc) string { return d.EventID })
	if mm == nil {
		return nil
	}
	m := &feedMirror{Mirror: mm}
	m.newest = m.Order("newest", func(a, b *feedDoc) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return strings.Compare(a.EventID, b.EventID)
	}, nil)
	m.bySeq = m.Order("seq", func(a, b *feedDoc) int { return cmp.Compare(a.Seq, b.Seq) }, nil)
	return m
}

// put records an inserted entry as the database returns it: its time in
// UTC at the stored precision.
func (m *feedMirror) put(d feedDoc) {
	d.At = clock.Stored(d.At)
	m.Put(d)
}

func (m *feedMirror) maxSeq() int64 {
	var seq int64
	m.bySeq.Descend(nil, func(d *feedDoc) bool { seq = d.Seq; return false })
	return seq
}

// page is Page's query: newest first, strictly older than after,
// of type typ when given.
func (m *feedMirror) page(typ domain.FeedType, after *domain.FeedPageKey, limit int) []domain.StoredFeedEntry {
	out := make([]domain.StoredFeedEntry, 0, limit)
	if limit <= 0 {
		return out
	}
	var below func(*feedDoc) bool
	if after != nil {
		at := clock.Stored(after.At)
		below = func(d *feedDoc) bool {
			if c := d.At.Compare(at); c != 0 {
				return c < 0
			}
			return d.EventID < after.EventID
		}
	}
	m.newest.Descend(below, func(d *feedDoc) bool {
		if typ == "" || d.Type == string(typ) {
			out = append(out, d.entry())
		}
		return len(out) < limit
	})
	return out
}

// since is Since's query: entries after seq in stream order.
func (m *feedMirror) since(seq int64, limit int) []domain.StoredFeedEntry {
	out := make([]domain.StoredFeedEntry, 0, limit)
	if limit <= 0 {
		return out
	}
	m.bySeq.Ascend(func(d *feedDoc) bool { return d.Seq > seq }, func(d *feedDoc) bool {
		out = append(out, d.entry())
		return len(out) < limit
	})
	return out
}

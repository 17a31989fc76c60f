package store

import (
	"slices"
	"strings"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/messaging/internal/domain"
)

// broadcastsBySeqUpTo is the default of Mirrored.bySeqUpTo: a page of at most
// this many broadcasts above a citizen's start is taken by Seq and sorted;
// above it the newest-first order is walked until the page is full.
const broadcastsBySeqUpTo = 1024

// broadcastMirror is the broadcasts in memory (one row per broadcast,
// whatever the population), in the orders of the "seq", "key" and "newest"
// indexes: the latest Seq, whether a key was broadcast, where a citizen
// joined and a page are binary searches.
type broadcastMirror struct {
	*mongox.Mirror[broadcastDoc]
	bySeq     *mongox.Order[broadcastDoc]
	byKey     *mongox.Order[broadcastDoc]
	byCreated *mongox.Order[broadcastDoc] // oldest first: created_at, then _id
}

func broadcastMirrorOf(db *mongox.DB) *broadcastMirror {
	m := mongox.MirrorOf(db, "broadcasts", func(d *broadcastDoc) string { return d.ID })
	if m == nil {
		return nil
	}
	return &broadcastMirror{
		Mirror: m,
		bySeq: m.Order("seq", func(a, b *broadcastDoc) int {
			if a.Seq != b.Seq {
				return cmpInt(a.Seq, b.Seq)
			}
			return strings.Compare(a.ID, b.ID)
		}, nil),
		byKey: m.Order("key", func(a, b *broadcastDoc) int {
			if c := strings.Compare(a.Key, b.Key); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		}, nil),
		byCreated: m.Order("newest", func(a, b *broadcastDoc) int {
			if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		}, nil),
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (m *broadcastMirror) hasKey(key string) bool {
	found := false
	m.byKey.Ascend(func(d *broadcastDoc) bool { return d.Key >= key }, func(d *broadcastDoc) bool {
		found = d.Key == key
		return false
	})
	return found
}

func (m *broadcastMirror) latest() int64 {
	var seq int64
	m.bySeq.Descend(nil, func(d *broadcastDoc) bool {
		seq = d.Seq
		return false
	})
	return seq
}

// joined is the Seq of the newest broadcast made before t (then the
// highest _id), as the "newest" index answers it.
func (m *broadcastMirror) joined(t time.Time) int64 {
	t = clock.Stored(t)
	var seq int64
	m.byCreated.Descend(func(d *broadcastDoc) bool { return d.CreatedAt.Before(t) }, func(d *broadcastDoc) bool {
		seq = d.Seq
		return false
	})
	return seq
}

// page is up to limit (≤ 0: every) broadcasts with Seq above from and not
// in skip, newest first, after pos. Seqs are dense, so latest-from bounds
// how many there are: a few are taken by Seq (a binary search) and sorted;
// many fill a page from the newest-first order, where each row skipped is
// one the citizen never saw or already read.
func (m *broadcastMirror) page(from int64, skip []int64, after *domain.Position, limit int, bySeqUpTo int64) []domain.Broadcast {
	var older func(*broadcastDoc) bool // after pos in the newest-first order
	if after != nil {
		at := clock.Stored(after.At)
		older = func(d *broadcastDoc) bool {
			if c := d.CreatedAt.Compare(at); c != 0 {
				return c < 0
			}
			return d.ID < after.ID
		}
	}
	full := func(n int) bool { return limit > 0 && n >= limit }
	var rows []*broadcastDoc
	if m.latest()-from <= bySeqUpTo {
		m.bySeq.Ascend(func(d *broadcastDoc) bool { return d.Seq > from }, func(d *broadcastDoc) bool {
			if !slices.Contains(skip, d.Seq) && (older == nil || older(d)) {
				rows = append(rows, d)
			}
			return true
		})
		slices.SortFunc(rows, func(a, b *broadcastDoc) int {
			if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
				return c
			}
			return strings.Compare(b.ID, a.ID)
		})
		if full(len(rows)) {
			rows = rows[:limit]
		}
	} else {
		m.byCreated.Descend(older, func(d *broadcastDoc) bool {
			if d.Seq > from && !slices.Contains(skip, d.Seq) {
				rows = append(rows, d)
			}
			return !full(len(rows))
		})
	}
	out := make([]domain.Broadcast, len(rows))
	for i, d := range rows {
		out[i] = d.domain()
	}
	return out
}

package store

import (
	"context"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/messaging/internal/domain"
)

// exclusiveBroadcasts is an in-memory copy of the broadcasts, kept when
// this process is the database's only writer (the embedded backend), where
// every broadcast is written through this store. FerretDB v1 scans a
// collection for any filter but an exact _id, so the notification list's
// broadcast lookups (latest seq, where a citizen joined, one page) are
// answered here instead; a shared database answers them from its indexes.
type exclusiveBroadcasts struct {
	mu    sync.RWMutex
	bySeq []domain.Broadcast // ascending Seq; Seqs are dense from 1
	keys  map[string]bool
}

func newExclusiveBroadcasts() *exclusiveBroadcasts {
	return &exclusiveBroadcasts{keys: map[string]bool{}}
}

func (x *exclusiveBroadcasts) load(ctx context.Context, s *Store) error {
	docs, err := mongox.FindAll[broadcastDoc](ctx, s.broadcasts.Collection(), bson.M{})
	if err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, d := range docs {
		x.putLocked(d.domain())
	}
	return nil
}

func (x *exclusiveBroadcasts) put(b domain.Broadcast) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.putLocked(b)
}

func (x *exclusiveBroadcasts) putLocked(b domain.Broadcast) {
	if x.keys[b.Key] {
		return
	}
	x.keys[b.Key] = true
	i, _ := slices.BinarySearchFunc(x.bySeq, b.Seq, func(e domain.Broadcast, seq int64) int { return int(e.Seq - seq) })
	x.bySeq = slices.Insert(x.bySeq, i, b)
}

func (x *exclusiveBroadcasts) has(key string) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.keys[key]
}

func (x *exclusiveBroadcasts) latest() int64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if len(x.bySeq) == 0 {
		return 0
	}
	return x.bySeq[len(x.bySeq)-1].Seq
}

// joined is the Seq of the newest broadcast made before t.
func (x *exclusiveBroadcasts) joined(t time.Time) int64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var best *domain.Broadcast
	for i := range x.bySeq { // as the index answers it: the newest time before t, then the highest id
		b := &x.bySeq[i]
		if b.CreatedAt.Before(t) && (best == nil || domain.Newer(note(*b), note(*best))) {
			best = b
		}
	}
	if best == nil {
		return 0
	}
	return best.Seq
}

// page is the newest-first page of broadcasts above from, not in skip, after pos.
func (x *exclusiveBroadcasts) page(from int64, skip []int64, after *domain.Position, limit int) []domain.Broadcast {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var out []domain.Broadcast
	for i := len(x.bySeq) - 1; i >= 0; i-- {
		b := x.bySeq[i]
		if b.Seq <= from {
			break
		}
		if slices.Contains(skip, b.Seq) {
			continue
		}
		if after != nil && !domain.Newer(domain.Notification{ID: after.ID, CreatedAt: after.At}, note(b)) {
			continue
		}
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b domain.Broadcast) int {
		if domain.Newer(note(a), note(b)) {
			return -1
		}
		return 1
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

func note(b domain.Broadcast) domain.Notification {
	return domain.Notification{ID: b.ID, CreatedAt: b.CreatedAt}
}

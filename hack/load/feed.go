package load

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"sharedworld.dev/pkg/client"
)

// Visibility times acknowledged writes until the live feed shows them:
// every write the feed reports (registration, claim, ticket, garden,
// proposal, vote) is noted with the time its answer arrived, and the
// follower notes when the stream delivers the item with its type and id.
type Visibility struct {
	mu sync.Mutex
	// acked: per feed key, the answer times of writes not seen yet;
	// early: per key, stream times of items that came before their answer.
	acked map[string][]time.Time
	early map[string][]time.Time
	lat   []time.Duration
	// Reconnects counts stream reconnections (the hub drops a slow reader;
	// Last-Event-ID resumes it without a gap).
	Reconnects atomic.Int64
}

// NewVisibility returns an empty tracker.
func NewVisibility() *Visibility {
	return &Visibility{acked: map[string][]time.Time{}, early: map[string][]time.Time{}}
}

// Acked notes an acknowledged write that the feed should show as typ, key
// (see feedItemKey).
func (v *Visibility) Acked(typ, key string, at time.Time) {
	k := typ + " " + key
	v.mu.Lock()
	defer v.mu.Unlock()
	if e := v.early[k]; len(e) > 0 {
		v.early[k] = e[1:]
		v.lat = append(v.lat, 0) // visible before its answer arrived
		return
	}
	v.acked[k] = append(v.acked[k], at)
}

func (v *Visibility) seen(it Item, at time.Time) {
	k := it.Type + " " + feedItemKey(it.Type, it.ID, it.Line)
	v.mu.Lock()
	defer v.mu.Unlock()
	if a := v.acked[k]; len(a) > 0 {
		v.acked[k] = a[1:]
		v.lat = append(v.lat, max(0, at.Sub(a[0])))
		return
	}
	v.early[k] = append(v.early[k], at)
}

// Pending counts acknowledged writes the stream has not shown yet.
func (v *Visibility) Pending() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	n := 0
	for _, a := range v.acked {
		n += len(a)
	}
	return n
}

// Dist is the write→visible latency distribution so far.
func (v *Visibility) Dist() Dist {
	v.mu.Lock()
	defer v.mu.Unlock()
	return Distribution(v.lat)
}

// Item is a feed item as the stream and the events list carry it.
type Item struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Line string `json:"line"`
}

// Follow reads the live feed until ctx ends, resuming with Last-Event-ID
// whenever the connection drops (pkg/client's Follow); each item goes to
// onItem with the time it arrived. ready is closed once the first
// subscription is open, so writes sent after it are all in the stream.
func Follow(ctx context.Context, c *Client, onItem func(it Item, at time.Time), ready chan<- struct{}, reconnects *atomic.Int64) error {
	var opened sync.Once
	stream := c.anonymous.Follow(ctx, client.FollowOptions{
		MinBackoff: 100 * time.Millisecond, MaxBackoff: 100 * time.Millisecond,
		OnOpen: func() {
			if ready != nil {
				opened.Do(func() { close(ready) })
			}
		},
		OnReconnect: func(error, time.Duration) { reconnects.Add(1) },
	})
	for ev := range stream.Events() {
		onItem(Item{Type: ev.Item.Type, ID: ev.Item.ID, Line: ev.Item.Line}, time.Now())
	}
	return stream.Err()
}

// Watch follows the feed for v until ctx ends.
func (v *Visibility) Watch(ctx context.Context, c *Client, ready chan<- struct{}) error {
	return Follow(ctx, c, v.seen, ready, &v.Reconnects)
}

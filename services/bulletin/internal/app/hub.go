package app

import (
	"cmp"
	"errors"
	"slices"
	"sync"

	"sharedworld.dev/services/bulletin/internal/domain"
)

// StreamItem is a feed entry at its position in the live stream.
type StreamItem = domain.StoredFeedEntry

// ErrTooManySubscribers refuses a live-stream client when the hub is full.
var ErrTooManySubscribers = errors.New("too many live feed subscribers")

// Hub fans feed items out to live-stream subscribers, in stream order and
// only once they are stored: an item under seq n goes out once every seq
// up to n is settled (its item stored and published, or skipped), so that
// what a subscriber gets live always follows, without a gap, what the store
// held when it subscribed (see Subscribe).
//
// Each subscriber has a buffered channel; publishing never waits: a
// subscriber whose buffer is full is dropped (its channel closed) and
// reconnects with Last-Event-ID, resuming from the store. So a slow client
// costs itself a reconnect and never slows the aggregator or the other
// clients.
type Hub struct {
	mu     sync.Mutex
	subs   map[*Subscription]struct{}
	max    int
	buffer int
	closed bool
	// released is the highest seq up to which every seq is settled and
	// sent out; pending holds the settled seqs above it (nil: skipped).
	released int64
	pending  map[int64]*StreamItem
	// recent is the last items released, in seq order: every item
	// released after recentFloor is in it (a skipped seq has none), so a
	// client resuming close behind the live edge catches up from memory
	// instead of reading the store (see SubscribeAfter).
	recent      []StreamItem
	recentFloor int64
	// settled is signalled (never waited on) whenever released grows, for
	// the leader's head keeper.
	settled chan struct{}
	obs     Observer
}

// recentMax is how many released items the hub keeps for resuming clients.
const recentMax = 4096

// NewHub allows at most max subscribers, each buffering up to buffer items.
// The stream starts after seq 0; StartAfter moves that.
func NewHub(max, buffer int, obs Observer) *Hub {
	return &Hub{subs: map[*Subscription]struct{}{}, max: max, buffer: buffer, pending: map[int64]*StreamItem{}, settled: make(chan struct{}, 1), obs: obs}
}

// StartAfter makes seq the last one released: the next item is seq+1 (the
// stored feed's highest seq, at start).
func (h *Hub) StartAfter(seq int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.released = seq
	h.recent, h.recentFloor = nil, seq
}

// Subscription is one live-stream client's channel.
type Subscription struct {
	// After is the seq released when the subscription started: every item
	// up to it is in the store, and every item after it comes on C.
	After int64
	// Backlog, when Covered, is every item after the seq the subscriber
	// resumes from up to After, from memory: the store need not be read.
	Backlog []StreamItem
	Covered bool
	C       <-chan StreamItem
	c       chan StreamItem
	hub     *Hub
	dropped bool // guarded by hub.mu
}

// Subscribe adds a subscriber, or refuses when the hub is full or closed.
func (h *Hub) Subscribe() (*Subscription, error) { return h.SubscribeAfter(-1) }

// SubscribeAfter is Subscribe for a client resuming after seq: when the
// hub still holds every item released after seq, the subscription carries
// them (Backlog, Covered), taken at the same instant as After.
func (h *Hub) SubscribeAfter(seq int64) (*Subscription, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || len(h.subs) >= h.max {
		return nil, ErrTooManySubscribers
	}
	c := make(chan StreamItem, h.buffer)
	s := &Subscription{After: h.released, C: c, c: c, hub: h}
	if seq >= h.recentFloor && seq < h.released {
		i, _ := slices.BinarySearchFunc(h.recent, seq, func(it StreamItem, seq int64) int { return cmp.Compare(it.Seq, seq+1) })
		s.Backlog, s.Covered = slices.Clone(h.recent[i:]), true
	}
	h.subs[s] = struct{}{}
	h.obs.SubscribersChanged(1)
	return s, nil
}

// Publish settles item.Seq with its item, stored under it; it goes out
// once every earlier seq is settled.
func (h *Hub) Publish(item StreamItem) { h.settle(item.Seq, &item) }

// Skip settles a seq that holds no item (its write did not store one), so
// that the items after it are not held back.
func (h *Hub) Skip(seq int64) { h.settle(seq, nil) }

func (h *Hub) settle(seq int64, item *StreamItem) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if seq <= h.released {
		return // settled before
	}
	h.pending[seq] = item
	for {
		next, ok := h.pending[h.released+1]
		if !ok {
			return
		}
		delete(h.pending, h.released+1)
		h.released++
		select {
		case h.settled <- struct{}{}:
		default: // a signal is pending; its reader reads Released anyway
		}
		if next != nil {
			h.sendLocked(*next)
			h.remember(*next)
		}
	}
}

// remember keeps a released item among the recent ones, forgetting the
// oldest beyond recentMax (in steps, so that trimming is rare).
func (h *Hub) remember(item StreamItem) {
	h.recent = append(h.recent, item)
	if len(h.recent) >= 2*recentMax {
		drop := len(h.recent) - recentMax
		h.recentFloor = h.recent[drop-1].Seq
		h.recent = slices.Clone(h.recent[drop:])
	}
}

// sendLocked offers item to every subscriber without waiting.
func (h *Hub) sendLocked(item StreamItem) {
	for s := range h.subs {
		select {
		case s.c <- item:
		default:
			s.dropped = true
			h.removeLocked(s)
			h.obs.SubscriberDropped()
		}
	}
}

// Dropped reports whether the hub dropped this subscriber for falling behind.
func (s *Subscription) Dropped() bool {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return s.dropped
}

// Close removes the subscriber (safe to call more than once).
func (s *Subscription) Close() {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	s.hub.removeLocked(s)
}

func (h *Hub) removeLocked(s *Subscription) {
	if _, ok := h.subs[s]; !ok {
		return
	}
	delete(h.subs, s)
	close(s.c)
	h.obs.SubscribersChanged(-1)
}

// Released is the highest seq up to which every seq is settled.
func (h *Hub) Released() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.released
}

// Settled signals after Released grew (one signal may stand for several).
func (h *Hub) Settled() <-chan struct{} { return h.settled }

// Buffer is how many items a subscriber may be behind before it is dropped.
func (h *Hub) Buffer() int { return h.buffer }

// Len is the number of subscribers.
func (h *Hub) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Close ends every subscription and refuses new ones (at shutdown).
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for s := range h.subs {
		h.removeLocked(s)
	}
}

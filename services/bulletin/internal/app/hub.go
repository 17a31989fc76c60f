package app

import (
	"errors"
	"sync"

	"sharedworld.dev/services/bulletin/internal/domain"
)

// StreamItem is a feed entry at its position in the live stream.
type StreamItem = domain.StoredFeedEntry

// ErrTooManySubscribers refuses a live-stream client when the hub is full.
var ErrTooManySubscribers = errors.New("too many live feed subscribers")

// Hub fans feed items out to live-stream subscribers. Each subscriber has a
// buffered channel; publishing never waits: a subscriber whose buffer is
// full is dropped (its channel closed) and reconnects with Last-Event-ID,
// resuming from the store. So a slow client costs itself a reconnect and
// never slows the aggregator or the other clients.
type Hub struct {
	mu     sync.Mutex
	subs   map[*Subscription]struct{}
	max    int
	buffer int
	closed bool
}

// NewHub allows at most max subscribers, each buffering up to buffer items.
func NewHub(max, buffer int) *Hub {
	return &Hub{subs: map[*Subscription]struct{}{}, max: max, buffer: buffer}
}

// Subscription is one live-stream client's channel.
type Subscription struct {
	C       <-chan StreamItem
	c       chan StreamItem
	hub     *Hub
	dropped bool // guarded by hub.mu
}

// Subscribe adds a subscriber, or refuses when the hub is full or closed.
func (h *Hub) Subscribe() (*Subscription, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || len(h.subs) >= h.max {
		return nil, ErrTooManySubscribers
	}
	c := make(chan StreamItem, h.buffer)
	s := &Subscription{C: c, c: c, hub: h}
	h.subs[s] = struct{}{}
	sseSubscribers.Inc()
	return s, nil
}

// Publish offers item to every subscriber without waiting.
func (h *Hub) Publish(item StreamItem) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		select {
		case s.c <- item:
		default:
			s.dropped = true
			h.removeLocked(s)
			sseDropped.Inc()
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
	sseSubscribers.Dec()
}

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

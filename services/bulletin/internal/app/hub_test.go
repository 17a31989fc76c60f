package app

import (
	"errors"
	"testing"
	"time"
)

// TestSlowSubscriberIsDroppedNotWaitedFor: a subscriber that stops reading
// is dropped once its buffer is full; publishing never blocks, and the
// other subscribers keep everything (CONTRACT §6 backpressure).
func TestSlowSubscriberIsDroppedNotWaitedFor(t *testing.T) {
	h := NewHub(10, 4, unobserved{})
	slow, err := h.Subscribe()
	if err != nil {
		t.Fatal(err)
	}
	fast, err := h.Subscribe()
	if err != nil {
		t.Fatal(err)
	}
	received := make(chan int64, 100)
	go func() {
		for it := range fast.C {
			received <- it.Seq
		}
		close(received)
	}()

	done := make(chan struct{})
	go func() {
		for seq := int64(1); seq <= 50; seq++ {
			h.Publish(StreamItem{Seq: seq})
			// Give the fast reader a chance: it must never fall 4 behind.
			deadline := time.Now().Add(time.Second)
			for len(received) < int(seq) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Publish blocked on a subscriber that does not read")
	}

	if !slow.Dropped() {
		t.Fatal("the slow subscriber was not dropped")
	}
	n := 0
	for range slow.C { // closed after what fitted in its buffer
		n++
	}
	if n != 4 {
		t.Fatalf("the slow subscriber's channel held %d items before closing, want its buffer of 4", n)
	}
	if fast.Dropped() {
		t.Fatal("the reading subscriber was dropped")
	}
	for want := int64(1); want <= 50; want++ {
		if got := <-received; got != want {
			t.Fatalf("fast subscriber got %d, want %d", got, want)
		}
	}
	if h.Len() != 1 {
		t.Fatalf("hub holds %d subscribers, want 1", h.Len())
	}
}

func TestHubLimitAndClose(t *testing.T) {
	h := NewHub(2, 1, unobserved{})
	a, _ := h.Subscribe()
	if _, err := h.Subscribe(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Subscribe(); !errors.Is(err, ErrTooManySubscribers) {
		t.Fatalf("third subscriber over a limit of 2: %v", err)
	}
	a.Close()
	a.Close() // twice is harmless
	if _, err := h.Subscribe(); err != nil {
		t.Fatalf("a freed place is usable again: %v", err)
	}
	h.Close()
	if _, err := h.Subscribe(); !errors.Is(err, ErrTooManySubscribers) {
		t.Fatal("a closed hub takes no subscribers")
	}
	if h.Len() != 0 {
		t.Fatal("close ends every subscription")
	}
}

// TestHubSendsStoredItemsInStreamOrder: an item goes out only once every
// earlier seq is settled (published or skipped), and a subscription knows
// the last seq released before it started, so a resume reads the store up
// to there and takes the rest live (CONTRACT §6: no gap, no repeat).
func TestHubSendsStoredItemsInStreamOrder(t *testing.T) {
	h := NewHub(10, 16, unobserved{})
	h.StartAfter(4)
	early, _ := h.Subscribe()
	if early.After != 4 {
		t.Fatalf("a subscription before any item starts after the stored feed's last seq 4, got %d", early.After)
	}
	h.Publish(StreamItem{Seq: 7})
	h.Publish(StreamItem{Seq: 6})
	if len(early.C) != 0 {
		t.Fatal("items 6 and 7 went out before seq 5 was settled")
	}
	late, _ := h.Subscribe()
	if late.After != 4 {
		t.Fatalf("nothing is released while seq 5 is open: After %d, want 4", late.After)
	}
	h.Skip(5)
	h.Publish(StreamItem{Seq: 6}) // settled before: no repeat
	after, _ := h.Subscribe()
	if after.After != 7 {
		t.Fatalf("after seq 5 is skipped, 6 and 7 are released: After %d, want 7", after.After)
	}
	for _, s := range []*Subscription{early, late} {
		if len(s.C) != 2 || (<-s.C).Seq != 6 || (<-s.C).Seq != 7 {
			t.Fatal("a subscriber gets 6 then 7, each once")
		}
	}
	if len(after.C) != 0 {
		t.Fatal("a subscription gets only the items released after it started")
	}
}

// A resuming subscriber gets, from memory and at the instant its
// subscription starts, every item released after the seq it resumes from,
// as long as the hub still holds them all; from further back (or before
// anything was released since start) it must read the store.
func TestHubResumesFromMemoryWhileItHoldsEveryItem(t *testing.T) {
	const last = 10 + 3*recentMax
	h := NewHub(10, last, unobserved{})
	h.StartAfter(10)
	if s, _ := h.SubscribeAfter(5); s.Covered {
		t.Fatal("items up to the start are only in the store")
	}
	for seq := int64(11); seq <= last; seq++ {
		if seq == 13 {
			h.Skip(seq)
			continue
		}
		h.Publish(StreamItem{Seq: seq})
	}
	s, _ := h.SubscribeAfter(2*recentMax + 100)
	if !s.Covered || s.After != last || int64(len(s.Backlog)) != s.After-(2*recentMax+100) ||
		s.Backlog[0].Seq != 2*recentMax+101 || s.Backlog[len(s.Backlog)-1].Seq != s.After {
		t.Fatalf("resume close behind the edge: covered %v, %d items, after %d", s.Covered, len(s.Backlog), s.After)
	}
	if s, _ := h.SubscribeAfter(12); s.Covered {
		t.Fatal("the oldest items were forgotten: a resume from before them reads the store")
	}
	if edge, _ := h.SubscribeAfter(s.After); edge.Covered || len(edge.Backlog) != 0 {
		t.Fatal("a subscriber at the live edge has nothing to catch up")
	}
}

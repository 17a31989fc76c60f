package app

import (
	"testing"
	"time"
)

// TestSlowSubscriberIsDroppedNotWaitedFor: a subscriber that stops reading
// is dropped once its buffer is full; publishing never blocks, and the
// other subscribers keep everything (CONTRACT §6 backpressure).
func TestSlowSubscriberIsDroppedNotWaitedFor(t *testing.T) {
	h := NewHub(10, 4)
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
	h := NewHub(2, 1)
	a, _ := h.Subscribe()
	if _, err := h.Subscribe(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Subscribe(); err != ErrTooManySubscribers {
		t.Fatalf("third subscriber over a limit of 2: %v", err)
	}
	a.Close()
	a.Close() // twice is harmless
	if _, err := h.Subscribe(); err != nil {
		t.Fatalf("a freed place is usable again: %v", err)
	}
	h.Close()
	if _, err := h.Subscribe(); err != ErrTooManySubscribers {
		t.Fatal("a closed hub takes no subscribers")
	}
	if h.Len() != 0 {
		t.Fatal("close ends every subscription")
	}
}

package http

import (
	"fmt"
	"testing"
	"time"

	"sharedworld.dev/services/bulletin/internal/domain"
)

// TestFramesAreEncodedOncePerItem: followers of one reader share an item's
// encoded message; a slot reused by a later seq, or by another item under
// the same seq (after a rebuild), is encoded afresh.
func TestFramesAreEncodedOncePerItem(t *testing.T) {
	var c frameCache
	encoded := 0
	cursor := func(e domain.StoredFeedEntry) string {
		encoded++
		return fmt.Sprintf("c%d", e.Seq)
	}
	item := func(seq int64, id, body string) domain.StoredFeedEntry {
		return domain.StoredFeedEntry{Seq: seq, FeedEntry: domain.FeedEntry{EventID: id,
			Item: domain.FeedItem{Type: domain.FeedAnnouncement, At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Line: "line " + body, Body: &body, ID: id}}}
	}
	get := func(e domain.StoredFeedEntry) string {
		t.Helper()
		b, err := c.get(e, cursor)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	first := get(item(7, "e7", "a <b> & c"))
	want := "id: c7\ndata: " + `{"type":"announcement","at":"2026-01-02T03:04:05Z","tag":"#announcement","line":"line a <b> & c","body":"a <b> & c","id":"e7"}` + "\n\n"
	if first != want {
		t.Fatalf("frame\n%q\nwant\n%q", first, want)
	}
	for range 3 {
		if get(item(7, "e7", "a <b> & c")) != first {
			t.Fatal("the cached frame changed")
		}
	}
	if encoded != 1 {
		t.Fatalf("encoded %d times for one item, want once", encoded)
	}
	if f := get(item(7+frameSlots, "e9", "later")); f == first || encoded != 2 {
		t.Fatalf("a later seq in the same slot got the earlier frame (%d encodings)", encoded)
	}
	if f := get(item(7, "other", "rebuilt")); f == first || encoded != 3 {
		t.Fatalf("another item under the same seq got the earlier frame (%d encodings)", encoded)
	}
}

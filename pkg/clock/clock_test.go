package clock

import (
	"testing"
	"time"
)

func TestDevAdvanceMovesForwardOnly(t *testing.T) {
	d := NewDev()
	before := d.Now()
	after := d.Advance(72 * time.Hour)
	if got := after.Sub(before); got < 72*time.Hour || got > 73*time.Hour {
		t.Fatalf("advance by 72h moved the clock by %v", got)
	}
	again := d.Advance(-time.Hour)
	if again.Before(after) {
		t.Fatalf("a negative advance moved the clock back: %v < %v", again, after)
	}
}

func TestFormats(t *testing.T) {
	ts := time.Date(2026, 11, 22, 9, 15, 3, 127_000_000, time.FixedZone("x", 3600))
	cases := []struct{ name, got, want string }{
		{"§1 full timestamp", Timestamp(ts), "2026-11-22T08:15:03.127Z"},
		{"§1 feed at", FeedTimestamp(ts), "2026-11-22T08:15:03Z"},
		{"§11 utc day", UTCDay(ts).Format(time.RFC3339), "2026-11-22T00:00:00Z"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %q want %q", c.name, c.got, c.want)
		}
	}
}

func TestStoredIsUTCWholeMilliseconds(t *testing.T) {
	in := time.Date(2026, 11, 23, 13, 0, 0, 123_456_789, time.FixedZone("x", 3600))
	got := Stored(in)
	if got.Location() != time.UTC || got.Nanosecond() != 123_000_000 || !got.Equal(in.Truncate(time.Millisecond)) {
		t.Fatalf("Stored(%v) = %v", in, got)
	}
}

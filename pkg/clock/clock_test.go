package clock

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestDevAdvanceMovesForwardOnly(t *testing.T) {
	d := NewDev()
	before := d.Now()
	after, err := d.Advance(72*time.Hour, nil)
	if got := after.Sub(before); err != nil || got < 72*time.Hour || got > 73*time.Hour {
		t.Fatalf("advance by 72h moved the clock by %v (%v)", got, err)
	}
	again, _ := d.Advance(-time.Hour, nil)
	if again.Before(after) {
		t.Fatalf("a negative advance moved the clock back: %v < %v", again, after)
	}
}

// The largest duration would wrap the world into the past.
func TestDevAdvanceIsBounded(t *testing.T) {
	d := NewDev()
	for _, by := range []time.Duration{math.MaxInt64, MaxDevOffset + 1} {
		if _, err := d.Advance(by, nil); !errors.Is(err, ErrTooFar) {
			t.Fatalf("advance by %v: want ErrTooFar, got %v", by, err)
		}
	}
	if _, err := d.Advance(MaxDevOffset-time.Hour, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Advance(2*time.Hour, nil); !errors.Is(err, ErrTooFar) {
		t.Fatalf("the bound is on the total offset: %v", err)
	}
	if _, err := d.Advance(math.MaxInt64, nil); !errors.Is(err, ErrTooFar) || d.Offset() != MaxDevOffset-time.Hour {
		t.Fatalf("a refused advance moves nothing: %v %v", err, d.Offset())
	}
	if now := d.Now(); now.Before(time.Now()) {
		t.Fatalf("the world went into the past: %v", now)
	}
}

func TestDevAdvanceKeepsTheOffsetFirst(t *testing.T) {
	d := NewDevAt(time.Hour)
	var kept time.Duration
	if _, err := d.Advance(time.Hour, func(o time.Duration) error { kept = o; return nil }); err != nil || kept != 2*time.Hour || d.Offset() != 2*time.Hour {
		t.Fatalf("kept %v, offset %v, %v", kept, d.Offset(), err)
	}
	failed := errors.New("disk full")
	if _, err := d.Advance(time.Hour, func(time.Duration) error { return failed }); !errors.Is(err, failed) || d.Offset() != 2*time.Hour {
		t.Fatalf("an offset not kept must not move the clock: %v %v", err, d.Offset())
	}
	if NewDevAt(-time.Hour).Offset() != 0 || NewDevAt(math.MaxInt64).Offset() != MaxDevOffset {
		t.Fatal("a kept offset is brought within bounds")
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

// Timestamp writes what the layout would, for any instant and zone: the
// edges of each field, a spread of instants, and years the fast path hands
// to time.Format.
func TestTimestampIsTheLayout(t *testing.T) {
	layout := "2006-01-02T15:04:05.000Z"
	east, west := time.FixedZone("e", 14*3600), time.FixedZone("w", -12*3600)
	times := []time.Time{{}, time.Unix(0, 0), time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 1_000_000, east), time.Date(2026, 2, 28, 23, 59, 59, 999_000_000, west)}
	for i := range 2000 {
		// about 25 days apart from 1970 to 2106, with varied milliseconds
		times = append(times, time.Unix(int64(i)*2_147_483, int64(i)*7_919_993%1_000_000_000).In(east))
	}
	for _, ts := range times {
		if got, want := Timestamp(ts), ts.UTC().Format(layout); got != want {
			t.Fatalf("Timestamp(%v) = %q, want %q", ts, got, want)
		}
		if got, want := string(AppendTimestamp([]byte(`"`), ts)), `"`+ts.UTC().Format(layout); got != want {
			t.Fatalf("AppendTimestamp(%v) = %q, want %q", ts, got, want)
		}
	}
}

func BenchmarkTimestamp(b *testing.B) {
	ts := time.Date(2026, 11, 22, 9, 15, 3, 127_000_000, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		_ = Timestamp(ts)
	}
}

func TestStoredIsUTCWholeMilliseconds(t *testing.T) {
	in := time.Date(2026, 11, 23, 13, 0, 0, 123_456_789, time.FixedZone("x", 3600))
	got := Stored(in)
	if got.Location() != time.UTC || got.Nanosecond() != 123_000_000 || !got.Equal(in.Truncate(time.Millisecond)) {
		t.Fatalf("Stored(%v) = %v", in, got)
	}
}

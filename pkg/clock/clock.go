// Package clock gives every service one notion of "now" so that the
// development clock (CONTRACT §10) can move world time for all of them at once.
package clock

import (
	"errors"
	"sync"
	"time"
)

// Clock tells the world's domain time.
type Clock interface {
	Now() time.Time
}

// System is the wall clock in UTC.
type System struct{}

// Now returns the current wall-clock time in UTC.
func (System) Now() time.Time { return time.Now().UTC() }

// Dev is the development clock: wall time plus an offset that only moves
// forward, at most MaxDevOffset in all. One Dev is shared by every service
// in a process.
type Dev struct {
	mu     sync.RWMutex
	offset time.Duration
}

// MaxDevOffset is how far the development clock may run ahead of the wall
// clock in all: ten years of 365 days. Beyond it durations near the int64
// limit would wrap the world's time into the past.
const MaxDevOffset = 10 * 365 * 24 * time.Hour

// ErrTooFar is returned by Advance when the total offset would pass MaxDevOffset.
var ErrTooFar = errors.New("the development clock may run at most ten years ahead")

// NewDev returns a development clock with no offset.
func NewDev() *Dev { return &Dev{} }

// NewDevAt returns a development clock already offset (a kept offset,
// brought within 0 to MaxDevOffset).
func NewDevAt(offset time.Duration) *Dev {
	return &Dev{offset: min(max(offset, 0), MaxDevOffset)}
}

// Now returns wall time plus the accumulated offset.
func (d *Dev) Now() time.Time {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return time.Now().UTC().Add(d.offset)
}

// Offset is how far the clock runs ahead of the wall clock.
func (d *Dev) Offset() time.Duration {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.offset
}

// Advance moves the clock forward by a non-negative duration and returns
// the new now. A total offset beyond MaxDevOffset is ErrTooFar and moves
// nothing. keep, when given, stores the new offset first (under the
// clock's lock, so stored and in-memory offsets agree); when it fails the
// clock does not move, so a restart never finds the world behind.
func (d *Dev) Advance(by time.Duration, keep func(offset time.Duration) error) (time.Time, error) {
	by = max(by, 0)
	d.mu.Lock()
	if by > MaxDevOffset-d.offset { // compared so, not summed: no overflow
		d.mu.Unlock()
		return time.Time{}, ErrTooFar
	}
	next := d.offset + by
	if keep != nil {
		if err := keep(next); err != nil {
			d.mu.Unlock()
			return time.Time{}, err
		}
	}
	d.offset = next
	d.mu.Unlock()
	return d.Now(), nil
}

// Follow moves the clock forward to offset (kept elsewhere, as a service
// binary follows the world's one development clock); an offset behind the
// clock's, or beyond MaxDevOffset, moves nothing, so world time never goes back.
func (d *Dev) Follow(offset time.Duration) {
	offset = min(offset, MaxDevOffset)
	d.mu.Lock()
	d.offset = max(d.offset, offset)
	d.mu.Unlock()
}

// Fixed is a clock for tests that stays where it is put.
type Fixed struct {
	mu sync.Mutex
	t  time.Time
}

// NewFixed returns a clock fixed at t.
func NewFixed(t time.Time) *Fixed { return &Fixed{t: t.UTC()} }

// Now returns the fixed time.
func (f *Fixed) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

// Set moves the fixed clock to t.
func (f *Fixed) Set(t time.Time) {
	f.mu.Lock()
	f.t = t.UTC()
	f.mu.Unlock()
}

// timestampLayout is the contract's full timestamp, UTC with milliseconds.
const timestampLayout = "2006-01-02T15:04:05.000Z"

// Timestamp formats t as the contract's full timestamp, UTC with milliseconds.
// Every list answer formats one per item, so the digits are written here
// rather than by time.Format, which interprets its layout on each call
// (years outside 0–9999, which that layout writes otherwise, go to it).
func Timestamp(t time.Time) string {
	var b [24]byte
	return string(AppendTimestamp(b[:0], t))
}

// AppendTimestamp appends Timestamp(t) to b, for encoders of long lists.
func AppendTimestamp(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, timestampLayout)
	}
	hour, minute, sec := t.Clock()
	n := len(b)
	b = append(b, "0000-00-00T00:00:00.000Z"...)
	d := b[n:]
	digits(d[0:4], year)
	digits(d[5:7], int(month))
	digits(d[8:10], day)
	digits(d[11:13], hour)
	digits(d[14:16], minute)
	digits(d[17:19], sec)
	digits(d[20:23], t.Nanosecond()/int(time.Millisecond))
	return b
}

// digits writes n into b in decimal, zero-padded to len(b).
func digits(b []byte, n int) {
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
}

// FeedTimestamp formats t as a feed `at`, UTC without fraction.
func FeedTimestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// UTCDay returns the start of t's UTC day; daily limits count these days.
func UTCDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// Precision is the finest time the world keeps: BSON dates hold whole
// milliseconds, so a time kept finer would not survive a round trip through
// storage and would compare unequal with itself after a read.
const Precision = time.Millisecond

// Stored is t as storage keeps it: UTC, whole milliseconds. Every time that
// is compared with a stored one, or written, passes through here first.
func Stored(t time.Time) time.Time { return t.UTC().Truncate(Precision) }

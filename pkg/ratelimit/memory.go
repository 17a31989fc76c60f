package ratelimit

import (
	"context"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Log is a sliding log in this process: per key, when each request of the
// last window was counted. It is the whole count of Memory, and the copy
// that answers for the database's slots where this process is the only
// writer (ratelimit/slots).
type Log struct {
	mu    sync.Mutex
	keys  map[string][]logEntry // sorted by at
	swept time.Time
}

type logEntry struct {
	at      time.Time
	expires time.Time
	slot    string
}

// NewLog returns an empty log.
func NewLog() *Log { return &Log{keys: map[string][]logEntry{}} }

// Reserve counts slot for key at now if fewer than limit requests of key
// were counted in (now-window, now]; otherwise it counts nothing and
// returns how long until the oldest of them leaves the window.
func (l *Log) Reserve(key, slot string, now time.Time, limit int, window time.Duration) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now, window)
	live := l.keys[key]
	from := sort.Search(len(live), func(i int) bool { return live[i].at.After(now.Add(-window)) })
	live = live[from:]
	if n := len(live); n >= limit {
		l.keys[key] = live
		// The window holds n; one more fits once n-limit+1 of them left.
		return false, live[n-limit].at.Add(window).Sub(now)
	}
	l.keys[key] = insertSorted(live, logEntry{at: now, expires: now.Add(window), slot: slot})
	return true, 0
}

// Add records a request counted before (loading the log from a store),
// whatever the budget.
func (l *Log) Add(key, slot string, at, expires time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.keys[key] = insertSorted(l.keys[key], logEntry{at: at, expires: expires, slot: slot})
}

// Remove uncounts slot.
func (l *Log) Remove(key, slot string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	entries := l.keys[key]
	for i, e := range entries {
		if e.slot == slot {
			l.keys[key] = append(entries[:i:i], entries[i+1:]...)
			return
		}
	}
}

// sweep forgets the keys whose every request left its window, at most
// once per window (the log's memory stays the last window's requests).
func (l *Log) sweep(now time.Time, window time.Duration) {
	if now.Sub(l.swept) < window {
		return
	}
	l.swept = now
	for k, entries := range l.keys {
		if len(entries) == 0 || !now.Before(entries[len(entries)-1].expires) {
			delete(l.keys, k)
		}
	}
}

// insertSorted keeps entries in time order; requests arrive almost in
// order, so the place is found from the end.
func insertSorted(entries []logEntry, e logEntry) []logEntry {
	i := len(entries)
	for i > 0 && entries[i-1].at.After(e.at) {
		i--
	}
	entries = append(entries, logEntry{})
	copy(entries[i+1:], entries[i:])
	entries[i] = e
	return entries
}

// Memory counts in this process only: a test's counter, or a process that
// needs no count to outlive it.
type Memory struct {
	log  *Log
	mu   sync.Mutex
	next int64
}

// NewMemory returns an empty in-process counter.
func NewMemory() *Memory { return &Memory{log: NewLog()} }

// Take implements Counter.
func (m *Memory) Take(_ context.Context, key string, now time.Time, limit int, window time.Duration) (string, time.Duration, error) {
	m.mu.Lock()
	m.next++
	slot := strconv.FormatInt(m.next, 10)
	m.mu.Unlock()
	if ok, wait := m.log.Reserve(key, slot, now, limit, window); !ok {
		return "", wait, nil
	}
	return slot, 0, nil
}

// Give implements Counter.
func (m *Memory) Give(_ context.Context, key, slot string) error {
	m.log.Remove(key, slot)
	return nil
}

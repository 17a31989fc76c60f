package ratelimit

import (
	"context"
	"sync"
	"time"
)

// Memory counts in this process: enough when the process is the only one
// serving the routes (the local runner's exclusive mode).
type Memory struct {
	mu     sync.Mutex
	counts map[memoryKey]*memoryCount
	swept  time.Time
}

type memoryKey struct {
	key    string
	window int64
}

type memoryCount struct {
	n       int
	expires time.Time
}

// NewMemory returns an empty in-process counter.
func NewMemory() *Memory { return &Memory{counts: map[memoryKey]*memoryCount{}} }

// memorySlot is the one slot name of Memory: its counts are plain numbers.
const memorySlot = "counted"

// Give implements Counter.
func (m *Memory) Give(_ context.Context, key string, window int64, _ string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.counts[memoryKey{key, window}]; c != nil && c.n > 0 {
		c.n--
	}
	return nil
}

// Take implements Counter.
func (m *Memory) Take(_ context.Context, key string, window int64, limit int, expires time.Time) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if now.Sub(m.swept) > time.Minute {
		for k, c := range m.counts {
			if now.After(c.expires) {
				delete(m.counts, k)
			}
		}
		m.swept = now
	}
	k := memoryKey{key, window}
	c := m.counts[k]
	if c == nil {
		c = &memoryCount{expires: expires}
		m.counts[k] = c
	}
	if c.n >= limit {
		return "", nil
	}
	c.n++
	return memorySlot, nil
}

package store

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// MirroredUsage is the usage adapter of the embedded default, where this
// process is the database's only writer: the MongoDB adapter, whose writes
// it keeps in an in-memory copy of every account, so that the sweep of
// holds at start reads no collection when the snapshot of a clean stop
// holds it. It keeps the garden's tally in memory too, counted from the
// garden's files at every start.
type MirroredUsage struct {
	*Usage
	copy *mongox.Mirror[usageDoc]

	mu sync.Mutex
	// found are the holds the sweep at start found recorded (the first
	// Holding), or nil before it: this process had taken none, so every
	// one of them was taken by a process that is gone.
	found map[string]bool
	// tally is the garden's count with the date of its last move.
	tally domain.Account
}

// NewMirroredUsage keeps the counters as NewUsage does, with the in-memory
// copy. db must be exclusive: another writer's changes would never reach
// the copy.
func NewMirroredUsage(db *mongox.DB) *MirroredUsage {
	copy := mongox.MirrorOf(db, "plot_usage", func(d *usageDoc) string { return d.Tenancy })
	if copy == nil {
		panic("store.NewMirroredUsage: the database is shared; use NewUsage")
	}
	m := &MirroredUsage{Usage: NewUsage(db), copy: copy}
	// A change reads the account from the copy, not the database (the
	// copy's holds are replaced by each change, never changed in place).
	m.docs.Cache = mongox.MirrorCache(copy, func(d *usageDoc) int64 { return d.Version })
	// mongox.Docs reports every write while it holds the account's lock,
	// so the copy is never behind a write that was answered.
	m.docs.Written = func(id string, d *usageDoc) {
		if d == nil {
			copy.Delete(id)
			return
		}
		copy.Put(*d)
	}
	return m
}

// Holding finds the tenancies recording holds in memory. The first call,
// the sweep at start, notes the holds it finds (Outlived).
func (m *MirroredUsage) Holding(ctx context.Context) ([]string, error) {
	err := m.copy.Load(ctx, func(ctx context.Context) ([]usageDoc, error) {
		return mongox.ScanAll[usageDoc](ctx, m.copy, m.docs.Collection(), noOutbox)
	})
	if err != nil {
		return nil, fmt.Errorf("find usage with holds: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	first := m.found == nil
	if first {
		m.found = map[string]bool{}
	}
	var out []string
	m.copy.Scan(func(d *usageDoc) bool {
		if len(d.Holds) > 0 {
			out = append(out, d.Tenancy)
		}
		for _, h := range d.Holds {
			m.found[h.ID] = m.found[h.ID] || first
		}
		return true
	})
	slices.Sort(out)
	return out, nil
}

// Outlived reports the holds the sweep at start found: this process is the
// database's only writer and had served nothing, so none of their writers
// is alive.
func (m *MirroredUsage) Outlived(h domain.Hold) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.found[h.ID]
}

// MoveTally moves the tally in memory.
func (m *MirroredUsage) MoveTally(_ context.Context, files int64, now time.Time) (int64, time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tally.Files += files
	return m.tally.Files, m.tally.Stamp(now), nil
}

// StartTally counts the garden at every start: as the only writer, once
// its holds are settled, no write of the garden is in flight. Dates go on
// after the latest the garden recorded (count's), not from now: the count
// is not kept across a restart, the dates of its events are.
func (m *MirroredUsage) StartTally(ctx context.Context, _ time.Time, count func(context.Context) (int64, time.Time, error)) error {
	files, latest, err := count(ctx)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tally = domain.Account{Usage: domain.Usage{Files: files}, Stamped: latest}
	return nil
}

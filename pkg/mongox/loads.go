package mongox

import (
	"context"
	"sync"
	"sync/atomic"
)

// A start after a crash fills every Mirror by a scan, and FerretDB v1
// decodes each document of a scan in the one goroutine serving the
// cursor: filled one after another, 26 copies of a 10,000-citizen world
// took the sum of their scans. Loads runs them side by side instead, a
// bounded number at a time (the host gives GOMAXPROCS), while the services
// go on building: a Mirror's Load takes the copy's lock, hands the scan to
// Loads and returns, and every read or write of the copy waits for the
// lock until the copy is filled, exactly as it would have after a Load
// that scanned in place.

// Loads runs the scans of Mirrors in the background until Wait.
type Loads struct {
	slots  chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	closed bool
	err    error
}

// NewLoads runs at most n scans at a time.
func NewLoads(n int) *Loads {
	return &Loads{slots: make(chan struct{}, max(n, 1))}
}

// Wait waits for every scan handed to l and returns the first error; a
// Load after it scans in place again.
func (l *Loads) Wait() error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// start runs fill in the background, unless Wait was called (false).
// fill must release what its caller holds, whatever happens.
func (l *Loads) start(ctx context.Context, fill func() error) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		var err error
		select {
		case l.slots <- struct{}{}:
			err = fill()
			<-l.slots
		case <-ctx.Done():
			// fill fails at once on an ended context, and releases the
			// copy's lock: its next Load scans in place
			err = fill()
		}
		if err != nil {
			l.mu.Lock()
			if l.err == nil {
				l.err = err
			}
			l.mu.Unlock()
		}
	}()
	return true
}

// background holds a DB's Loads while the host builds its services.
type background struct{ loads atomic.Pointer[Loads] }

// LoadInBackground makes every Mirror of the database that Loads before
// l.Wait fill in the background under l.
func (d *DB) LoadInBackground(l *Loads) { d.background.loads.Store(l) }

// backgroundLoads are the Loads of db, nil if none (or no db).
func (d *DB) backgroundLoads() *Loads {
	if d == nil {
		return nil
	}
	return d.background.loads.Load()
}

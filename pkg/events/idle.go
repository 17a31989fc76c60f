package events

import (
	"sync"
	"sync/atomic"
)

// idler is a relay or a consumer while it runs.
type idler interface{ Idle() bool }

// running holds the relays and consumers of this process while they run,
// so a host can tell when its event pipeline is at rest without knowing
// which services built them.
var running = struct {
	sync.Mutex
	set map[idler]struct{}
}{set: map[idler]struct{}{}}

// moved counts the events relays published and consumers handled in this
// process: unchanged between two looks, nothing flowed in between.
var moved atomic.Uint64

func track(i idler) (untrack func()) {
	running.Lock()
	running.set[i] = struct{}{}
	running.Unlock()
	return func() {
		running.Lock()
		delete(running.set, i)
		running.Unlock()
	}
}

// Pipeline reports whether every relay and consumer running in this process
// is idle (no outbox entry known to be pending, no event being applied,
// nothing left to read), and how many events they have moved so far. An
// event between a relay and a consumer is in neither: callers wait until
// both answers hold still for a moment (see platform.Host.Stop).
func Pipeline() (idle bool, eventsMoved uint64) {
	n := moved.Load()
	running.Lock()
	defer running.Unlock()
	for i := range running.set {
		if !i.Idle() {
			return false, n
		}
	}
	return true, n
}

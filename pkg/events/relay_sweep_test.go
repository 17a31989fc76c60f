package events_test

import (
	"testing"
	"time"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
)

// The relay sweeps every collection periodically only where another
// process may leave events behind (a shared database); on an exclusive
// one every write notifies it, and a sweep would decode every document
// of every collection on FerretDB each minute.
func TestRelaySweepsPeriodicallyOnlyOnASharedDatabase(t *testing.T) {
	kit := testkit.New(t)
	for mode, want := range map[mongox.Mode]time.Duration{mongox.Shared: time.Minute, mongox.Exclusive: 0} {
		r := events.NewRelay("sweeps", mongox.NewDB(kit.DB.Database, mode), nil, nil)
		if r.SweepEvery != want {
			t.Errorf("a relay on a database in mode %v sweeps every %v, want %v (0: only at start)", mode, r.SweepEvery, want)
		}
	}
}

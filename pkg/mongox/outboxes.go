package mongox

import "sync"

// A relay sweeps every collection at start because a previous process may
// have left events in an outbox. On an Exclusive database FerretDB decodes
// every document of a sweep to filter it: at 100,000 documents that is
// minutes of a core while agents are served. After a clean stop nothing
// can be left when every relay of the database ended with nothing to
// publish, no sweep owed and no write in doubt: the token of the clean
// stop (snapshot.go) says so, and the next start skips the sweep. A crash
// leaves no token (the start takes it out before anything writes), so the
// start after it sweeps as before.

// OutboxKeeper publishes a database's outboxes (the outbox relay).
type OutboxKeeper interface {
	// Settled reports whether the keeper has stopped with nothing left
	// to publish: every entry it was told of published, no sweep owed,
	// no write in doubt.
	Settled() bool
}

// outboxes are the keepers of a database's outboxes in this process.
type outboxes struct {
	mu      sync.Mutex
	keepers []OutboxKeeper
}

// KeepOutboxes registers k as a keeper of the database's outboxes: the
// token of a clean stop vouches for empty outboxes only when every keeper
// is Settled by then (a keeper that never ran is not).
func (d *DB) KeepOutboxes(k OutboxKeeper) {
	d.outboxes.mu.Lock()
	defer d.outboxes.mu.Unlock()
	d.outboxes.keepers = append(d.outboxes.keepers, k)
}

// OutboxesEmpty reports whether the last run of the database stopped
// cleanly with every outbox published (DB.OpenSnapshot read it from the
// token of that stop): nothing written before this start waits in an
// outbox, and a relay need not sweep at start. False on a Shared database,
// without a token, or when OpenSnapshot did not run.
func (d *DB) OutboxesEmpty() bool {
	d.snap.mu.Lock()
	defer d.snap.mu.Unlock()
	return d.snap.outboxesEmpty
}

// keepsOutboxes reports whether any keeper was registered.
func (d *DB) keepsOutboxes() bool {
	d.outboxes.mu.Lock()
	defer d.outboxes.mu.Unlock()
	return len(d.outboxes.keepers) > 0
}

// outboxesSettled reports whether every keeper is Settled.
func (d *DB) outboxesSettled() bool {
	d.outboxes.mu.Lock()
	defer d.outboxes.mu.Unlock()
	for _, k := range d.outboxes.keepers {
		if !k.Settled() {
			return false
		}
	}
	return true
}

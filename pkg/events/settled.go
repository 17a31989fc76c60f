package events

// Settled reports whether the relay has stopped (Run returned) with
// nothing left to publish: nothing pending, no sweep owed, no write in
// doubt. A clean stop records it in the database (mongox.OutboxKeeper),
// and the next start skips its sweep when every relay was settled.
func (r *Relay) Settled() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ended && len(r.pending) == 0 && !r.sweep && !r.draining && r.doubts == 0
}

func (r *Relay) setEnded(ended bool) {
	r.mu.Lock()
	r.ended = ended
	r.mu.Unlock()
}

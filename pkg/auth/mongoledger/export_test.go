package mongoledger

// Batches is how many inserts the ledger has sent.
func (l *Ledger) Batches() int64 { return l.inserts.Sent() }

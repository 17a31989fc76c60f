package mongoledger

import (
	"context"
	"time"
)

// SendBatch sends keys as one batch and returns each one's answer.
func (l *Ledger) SendBatch(ctx context.Context, keys []string, expires time.Time) (firsts []bool, errs []error) {
	batch := make([]*pending, len(keys))
	for i, key := range keys {
		batch[i] = &pending{doc: signatureDoc{ID: key, ExpiresAt: expires}}
	}
	l.group.send(ctx, batch)
	for _, p := range batch {
		firsts, errs = append(firsts, p.first), append(errs, p.err)
	}
	return firsts, errs
}

// Batches is how many inserts the ledger has sent.
func (l *Ledger) Batches() int64 { return l.group.sent.Load() }

package mongox

import "context"

// SendBatch sends docs as one batch and returns each one's answer.
func (b *BatchedInserts) SendBatch(ctx context.Context, docs []any) []error {
	batch := make([]*pending, len(docs))
	for i, d := range docs {
		batch[i] = &pending{doc: d}
	}
	b.send(ctx, batch)
	errs := make([]error, len(batch))
	for i, p := range batch {
		errs[i] = p.err
	}
	return errs
}

package domain

import "context"

// Head is where the elected aggregator has got, as readers learn it: every
// feed seq up to Settled is settled (its item stored, or never to be), and
// ETag and MapETag name the current document and map. A reader never goes
// past Settled, so a seq missing below it is a skipped one, not one still
// being written.
type Head struct {
	Settled int64
	ETag    string
	MapETag string
}

// RenderingStore keeps what the aggregator rendered for the readers; a
// leader writes it in its term, and a write from an earlier term than the
// stored one fails with ErrLeaseHeld.
type RenderingStore interface {
	SaveHead(ctx context.Context, term int64, h Head) error
	SaveDocument(ctx context.Context, term int64, etag string, data []byte) error
	SaveMap(ctx context.Context, term int64, etag string, data []byte) error
	Head(ctx context.Context) (Head, bool, error)
	Document(ctx context.Context) (etag string, data []byte, ok bool, err error)
	Map(ctx context.Context) (etag string, data []byte, ok bool, err error)
}

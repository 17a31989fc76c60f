package app

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"sync/atomic"
)

// Rendered is the bulletin document as served: the JSON bytes, their gzip
// form and their ETag, computed once per change so that a request only
// copies bytes. A Rendered is never modified after it is published.
type Rendered struct {
	JSON []byte
	Gzip []byte
	ETag string
	// Map is the occupancy bitmap of every claimed plot (the web board's
	// whole map; its JSON holds the bitmap's bytes), rebuilt only when a
	// plot changed.
	Map *Rendered
	// Covers is the live stream's seq up to which every item's change is
	// in this document (set by the aggregator; 0 where unknown): the
	// readers' head never names items its document does not show yet.
	Covers int64
}

// Board holds the current rendering; reads never lock.
type Board struct {
	current atomic.Pointer[Rendered]
	// changed is signalled (never waited on) after each rendering, for the
	// leader's head keeper; nil on a zero Board.
	changed chan struct{}
}

// NewBoard returns an empty board that signals its renderings on Changed.
func NewBoard() *Board { return &Board{changed: make(chan struct{}, 1)} }

// Changed signals after a new rendering (one signal may stand for several).
func (b *Board) Changed() <-chan struct{} { return b.changed }

// Current returns the latest rendering (nil before the first).
func (b *Board) Current() *Rendered { return b.current.Load() }

func (b *Board) publish(r *Rendered) {
	b.current.Store(r)
	select {
	case b.changed <- struct{}{}:
	default: // nil channel, or a signal already pending
	}
}

// newRendered compresses and tags a document. The ETag is a strong one: a
// hash of the exact bytes, so equal documents have equal tags across
// restarts and replicas.
func newRendered(doc []byte) (*Rendered, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(doc); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(doc)
	return &Rendered{JSON: doc, Gzip: buf.Bytes(), ETag: `"` + hex.EncodeToString(sum[:16]) + `"`}, nil
}

// Package mongoledger keeps the used request signatures in a database: the
// auth.SignatureLedger of every service (kept apart from package auth so
// the HTTP layers that verify requests never link the database driver).
package mongoledger

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/mongox"
)

// SignaturesCollection holds the used request signatures, one document per
// signature under a unique _id, until its window has passed.
const SignaturesCollection = "_signatures"

// Ledger is the auth.SignatureLedger on a database: the first use is an
// insert under the signature's _id, which the _id index makes atomic on
// every backend (FerretDB v1 included), so of two replicas racing on one
// signature exactly one inserts it; a duplicate key is a replay.
type Ledger struct {
	coll    *mongo.Collection
	expiry  *mongox.Expiry
	inserts *mongox.BatchedInserts
}

type signatureDoc struct {
	ID        string    `bson:"_id"`
	ExpiresAt time.Time `bson:"expires_at"`
}

// New prepares db's signatures collection and its expiry.
func New(ctx context.Context, db *mongox.DB, log *slog.Logger) (*Ledger, error) {
	coll := db.Collection(SignaturesCollection)
	// A signature an earlier process stored may stay unexpired this long
	// after the start: its t up to the window ahead of the clock, and
	// the window after it.
	exp, err := mongox.NewExpiry(ctx, db, coll, 2*auth.SignatureWindow+time.Second, log)
	if err != nil {
		return nil, fmt.Errorf("signature ledger: %w", err)
	}
	return &Ledger{coll: coll, expiry: exp, inserts: mongox.NewBatchedInserts(coll).WithLinger(mongox.QueueLinger)}, nil
}

// FirstUse implements SignatureLedger. Concurrent first uses are inserted
// together (mongox.BatchedInserts).
func (l *Ledger) FirstUse(ctx context.Context, key string, expires time.Time) (bool, error) {
	l.expiry.Tick(time.Now())
	l.expiry.Track(key, expires)
	err := l.inserts.Insert(ctx, signatureDoc{ID: key, ExpiresAt: expires.UTC()})
	switch {
	case errors.Is(err, mongox.ErrDuplicate):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("record signature: %w", err)
	}
	return true, nil
}

// Record implements SignatureLedger: a signature found stored is a replay;
// one not found goes with the next insert, and nobody waits for its answer
// (unless too many wait already: then it is a FirstUse).
func (l *Ledger) Record(ctx context.Context, key string, expires time.Time) (bool, error) {
	err := l.coll.FindOne(ctx, bson.M{"_id": key}, options.FindOne().SetProjection(bson.M{"_id": 1})).Err()
	switch {
	case err == nil:
		return false, nil
	case !errors.Is(err, mongo.ErrNoDocuments):
		return false, fmt.Errorf("look up signature: %w", err)
	}
	l.expiry.Tick(time.Now())
	if l.inserts.Queue(signatureDoc{ID: key, ExpiresAt: expires.UTC()}) {
		l.expiry.Track(key, expires)
		return true, nil
	}
	return l.FirstUse(ctx, key, expires)
}

// Drain waits until the signatures recorded without a waiter are stored,
// or ctx ends (a stopping process, before it closes the database).
func (l *Ledger) Drain(ctx context.Context) error { return l.inserts.Flush(ctx) }

// Sweep deletes the signatures that expired before now and says how many.
func (l *Ledger) Sweep(ctx context.Context, now time.Time) (int64, error) {
	return l.expiry.Sweep(ctx, now)
}

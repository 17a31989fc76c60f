package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// Leases keeps the aggregator's lease as one document, changed only by a
// write guarded by what was read (holder, term and expiry): of two replicas
// that read the same lease and both decide to take it, one write matches
// and the other finds nothing to change, so at most one holds each term.
// No transaction and no change stream: a plain conditional update, which
// FerretDB and MongoDB both serve.
type Leases struct {
	coll *mongo.Collection
	name string
}

var _ domain.LeaseStore = (*Leases)(nil)

// NewLeases keeps the lease named name in the "leases" collection of a
// database beside db's (its name with "_leases"): on the embedded database
// each database is a file of its own with a writer of its own, so a
// renewal never waits behind the aggregator's own batches of writes, which
// under load outlast the renew deadline and hand the lease over under a
// live leader.
func NewLeases(db *mongox.DB, name string) *Leases {
	return &Leases{coll: db.Client().Database(db.Name() + "_leases").Collection("leases"), name: name}
}

type leaseDoc struct {
	ID      string    `bson:"_id"`
	Holder  string    `bson:"holder"`
	Term    int64     `bson:"term"`
	Expires time.Time `bson:"expires"`
}

// Take asks for the lease for holder at now: it renews the holder's own
// lease, takes a lapsed or released one, or returns domain.ErrLeaseHeld.
//
// A write that finds the lease changed since it was read decides again on
// the lease as it is now (a compare-and-swap loop): the change may be this
// holder's own earlier renewal, applied late after its answer timed out,
// which must not read as the lease lost.
func (s *Leases) Take(ctx context.Context, holder string, now time.Time) (domain.Lease, error) {
	for attempt := 0; ; attempt++ {
		l, err := s.take(ctx, holder, now)
		if !errors.Is(err, errChanged) {
			return l, err
		}
		if attempt == 2 {
			return l, domain.ErrLeaseHeld
		}
	}
}

// errChanged means the lease changed between its read and the write.
var errChanged = errors.New("the lease changed since it was read")

func (s *Leases) take(ctx context.Context, holder string, now time.Time) (domain.Lease, error) {
	var d leaseDoc
	err := s.coll.FindOne(ctx, bson.M{"_id": s.name}).Decode(&d)
	found := err == nil
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return domain.Lease{}, fmt.Errorf("read lease: %w", err)
	}
	cur := domain.Lease{Holder: d.Holder, Term: d.Term, Expires: d.Expires}
	next, err := cur.TakenBy(holder, now)
	if err != nil {
		return cur, err
	}
	return next, s.replace(ctx, found, d, next)
}

// Release gives the lease up if holder still holds it in its term.
func (s *Leases) Release(ctx context.Context, l domain.Lease) error {
	r := l.Released()
	_, err := s.coll.UpdateOne(ctx, bson.M{"_id": s.name, "holder": l.Holder, "term": l.Term},
		bson.M{"$set": bson.M{"holder": r.Holder, "expires": time.Time{}}})
	if err != nil {
		return fmt.Errorf("release lease: %w", err)
	}
	return nil
}

// replace writes next over the lease as it was read; a write that finds
// the lease changed since means another replica got there first.
func (s *Leases) replace(ctx context.Context, found bool, was leaseDoc, next domain.Lease) error {
	doc := leaseDoc{ID: s.name, Holder: next.Holder, Term: next.Term, Expires: next.Expires.UTC()}
	if !found {
		_, err := s.coll.InsertOne(ctx, doc)
		if mongox.IsDuplicate(err) {
			return errChanged
		}
		if err != nil {
			return fmt.Errorf("take lease: %w", err)
		}
		return nil
	}
	res, err := s.coll.ReplaceOne(ctx, bson.M{"_id": s.name, "holder": was.Holder, "term": was.Term, "expires": was.Expires}, doc)
	if err != nil {
		return fmt.Errorf("take lease: %w", err)
	}
	if res.MatchedCount == 0 {
		return errChanged
	}
	return nil
}

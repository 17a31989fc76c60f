package store

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/citizens/directory"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/governance/internal/domain"
)

// Citizens counts and looks up living citizens in the service's own
// citizens projection (pkg/citizens keeps it from world.identity).
type Citizens struct {
	dir *directory.Directory
}

// NewCitizens reads the projection dir keeps.
func NewCitizens(dir *directory.Directory) *Citizens {
	return &Citizens{dir: dir}
}

// Living counts citizens not tombstoned.
func (c *Citizens) Living(ctx context.Context) (int64, error) {
	return c.dir.Living(ctx)
}

// IsLiving reports whether agentID is a living citizen.
func (c *Citizens) IsLiving(ctx context.Context, agentID string) (bool, error) {
	ct, found, err := c.dir.Lookup(ctx, agentID)
	return found && !ct.Tombstoned, err
}

// Lease is the check's lease: one document, held until its expiry.
type Lease struct {
	db   *mongox.DB
	coll *mongo.Collection
}

// NewLease keeps the lease in db's "leases" collection.
func NewLease(db *mongox.DB) *Lease { return &Lease{db: db, coll: db.Collection("leases")} }

const leaseID = "governance-check"

type leaseDoc struct {
	ID        string    `bson:"_id"`
	Holder    string    `bson:"holder"`
	ExpiresAt time.Time `bson:"expires_at"`
}

// Acquire takes the lease when it is free, expired or already holder's.
// The read and the write happen under the document's lock; on a shared
// database the write is also guarded by what was read, so of two replicas
// racing for it exactly one wins.
func (l *Lease) Acquire(ctx context.Context, holder string, now time.Time, ttl time.Duration) error {
	defer l.db.Lock(l.coll, leaseID)()
	var held leaseDoc
	err := l.coll.FindOne(ctx, bson.M{"_id": leaseID}).Decode(&held)
	next := bson.M{"holder": holder, "expires_at": now.Add(ttl)}
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		_, err = l.coll.InsertOne(ctx, leaseDoc{ID: leaseID, Holder: holder, ExpiresAt: now.Add(ttl)})
		if mongo.IsDuplicateKeyError(err) {
			return domain.ErrLeaseHeld
		}
		return err
	case err != nil:
		return err
	case held.Holder != holder && held.ExpiresAt.After(now):
		return domain.ErrLeaseHeld
	}
	res, err := l.coll.UpdateOne(ctx, l.db.Guarded(leaseID, bson.M{"holder": held.Holder, "expires_at": held.ExpiresAt}), bson.M{"$set": next})
	if err != nil {
		return err
	}
	if res.MatchedCount == 0 {
		return domain.ErrLeaseHeld
	}
	return nil
}

// Release gives the lease up if holder still holds it.
func (l *Lease) Release(ctx context.Context, holder string) error {
	defer l.db.Lock(l.coll, leaseID)()
	var held leaseDoc
	err := l.coll.FindOne(ctx, bson.M{"_id": leaseID}).Decode(&held)
	if errors.Is(err, mongo.ErrNoDocuments) || (err == nil && held.Holder != holder) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = l.coll.DeleteOne(ctx, l.db.Guarded(leaseID, bson.M{"holder": holder}))
	return err
}

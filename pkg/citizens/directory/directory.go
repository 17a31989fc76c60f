// Package directory answers "is this agent a living citizen?" for every
// service. Each service keeps a projection of citizen.* events in its own
// database; an agent it has not seen yet is looked up synchronously at
// identity and cached, so a citizen who just registered can act everywhere
// at once (read-your-writes across services). A living answer is asked
// about again after Recheck, so a tombstone stops the citizen everywhere
// within a second even when its event is late.
package directory

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	identityv1 "sharedworld.dev/proto/identity/v1"
)

// Recheck is how long a "living" answer from the fallback is trusted. The
// projection learns of a tombstone from citizen.tombstoned, which may lag
// (a busy pipeline, a restart), so a living citizen is asked about again
// at identity once this has passed: a tombstoned citizen is refused within
// Recheck plus one lookup of the tombstone, whichever path learns first.
// A tombstone in the projection is final and needs no asking.
const Recheck = 500 * time.Millisecond

// Directory is a service's local view of citizens with a synchronous fallback.
type Directory struct {
	db       *mongox.DB
	coll     *mongo.Collection
	fallback citizens.Source

	mu sync.Mutex
	// confirmed is when the fallback last said living, by agent (on the
	// monotonic clock: the development clock may jump): one entry per
	// citizen who acted here, as the projection has one document each.
	confirmed map[string]time.Time

	// held caches stored citizens on the exclusive backend, where every
	// write to the collection passes through upsertFields (which drops the
	// entry): an authenticated request then costs no database read.
	held sync.Map // agent id → citizens.Citizen

	// living counts the stored citizens not tombstoned on the exclusive
	// backend, where every write passes through upsertFields: counting them
	// in the database reads every document (FerretDB decodes each), which
	// cost a proposal tens of milliseconds at 1,000 citizens. Writes adjust
	// it holding countMu for reading; the first Living counts under the
	// write lock, so no write falls between the count and its adjustments.
	countMu sync.RWMutex
	counted atomic.Bool
	living  atomic.Int64
}

// New keeps the projection in db's "citizens" collection. The
// consumer and the fallback cache may write one citizen at once, so each
// write holds the document's lock in db.
func New(db *mongox.DB, fallback citizens.Source) *Directory {
	return &Directory{db: db, coll: db.Collection("citizens"), fallback: fallback, confirmed: map[string]time.Time{}}
}

// Lookup answers from the projection when it holds a tombstone or a living
// answer the fallback gave less than Recheck ago; otherwise it asks the
// fallback and stores what it says (version-guarded, like the events).
func (d *Directory) Lookup(ctx context.Context, agentID string) (citizens.Citizen, bool, error) {
	held, found, err := d.local(ctx, agentID)
	if err != nil || d.fallback == nil || (found && (held.Tombstoned || d.fresh(agentID))) {
		return held, found, err
	}
	c, known, err := d.fallback.Lookup(ctx, agentID)
	if err != nil {
		if found {
			// Identity cannot be asked, so it cannot tombstone anyone
			// either: the projection's answer stands until it can.
			return held, true, nil
		}
		return c, false, err
	}
	if !known {
		return held, found, nil
	}
	if !found || c.Version > held.Version {
		if err := d.upsert(ctx, c); err != nil {
			return c, true, err
		}
	}
	if found && held.Version > c.Version {
		c = held // the projection is ahead of the replica that answered
	}
	if !c.Tombstoned {
		d.confirm(agentID)
	}
	return c, true, nil
}

func (d *Directory) local(ctx context.Context, agentID string) (citizens.Citizen, bool, error) {
	if !d.db.Exclusive() {
		return d.stored(ctx, agentID)
	}
	if v, ok := d.held.Load(agentID); ok {
		return v.(citizens.Citizen), true, nil
	}
	// Filled under the document's lock, so a read that raced a write cannot
	// put the older document back after the write dropped it.
	defer d.db.Lock(d.coll, agentID)()
	return d.stored(ctx, agentID)
}

// stored reads the projection (the cache first on the exclusive backend);
// the caller holds the document's lock there.
func (d *Directory) stored(ctx context.Context, agentID string) (citizens.Citizen, bool, error) {
	if v, ok := d.held.Load(agentID); ok {
		return v.(citizens.Citizen), true, nil
	}
	var c citizens.Citizen
	err := d.coll.FindOne(ctx, bson.M{"_id": agentID}).Decode(&c)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("look up citizen %s: %w", agentID, err)
	}
	if d.db.Exclusive() {
		d.held.Store(agentID, c)
	}
	return c, true, nil
}

func (d *Directory) fresh(agentID string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	at, ok := d.confirmed[agentID]
	return ok && time.Since(at) < Recheck
}

func (d *Directory) confirm(agentID string) {
	d.mu.Lock()
	d.confirmed[agentID] = time.Now()
	d.mu.Unlock()
}

// Living counts the citizens not tombstoned.
func (d *Directory) Living(ctx context.Context) (int64, error) {
	if !d.db.Exclusive() {
		return d.count(ctx)
	}
	d.countMu.RLock()
	if d.counted.Load() {
		n := d.living.Load()
		d.countMu.RUnlock()
		return n, nil
	}
	d.countMu.RUnlock()
	d.countMu.Lock()
	defer d.countMu.Unlock()
	if !d.counted.Load() {
		n, err := d.count(ctx)
		if err != nil {
			return 0, err
		}
		d.living.Store(n)
		d.counted.Store(true)
	}
	return d.living.Load(), nil
}

func (d *Directory) count(ctx context.Context) (int64, error) {
	return d.coll.CountDocuments(ctx, bson.M{"tombstoned": bson.M{"$ne": true}})
}

// upsert stores c unless a newer version is already there.
func (d *Directory) upsert(ctx context.Context, c citizens.Citizen) error {
	return d.upsertFields(ctx, c.AgentID, c.Version, bson.M{"name": c.Name, "citizen_number": c.Number, "registered_at": c.RegisteredAt, "tombstoned": c.Tombstoned})
}

// Apply is the consumer handler for world.identity: idempotent and
// order-safe through the version guard.
func (d *Directory) Apply(ctx context.Context, e events.Event) error {
	m, err := e.Decode()
	if err != nil {
		return fmt.Errorf("%w: %w", events.ErrPermanent, err)
	}
	switch ev := m.(type) {
	case *identityv1.CitizenRegistered:
		return d.upsertFields(ctx, ev.GetAgentId(), ev.GetVersion(), bson.M{"name": ev.GetName(), "citizen_number": ev.GetCitizenNumber(), "registered_at": ev.GetRegisteredAt().AsTime(), "tombstoned": false})
	case *identityv1.CitizenUpdated:
		return d.upsertFields(ctx, ev.GetAgentId(), ev.GetVersion(), bson.M{"name": ev.GetName()})
	case *identityv1.CitizenTombstoned:
		return d.upsertFields(ctx, ev.GetAgentId(), ev.GetVersion(), bson.M{"tombstoned": true})
	}
	return nil
}

func (d *Directory) upsertFields(ctx context.Context, id string, version uint64, set bson.M) error {
	defer d.db.Lock(d.coll, id)()
	held, found, err := d.stored(ctx, id)
	if err != nil {
		return err
	}
	if found && held.Version >= version {
		return nil // the projection is already newer: an old or repeated event
	}
	defer d.held.Delete(id)
	set["version"] = version
	d.countMu.RLock()
	defer d.countMu.RUnlock()
	_, err = d.coll.UpdateOne(ctx, d.db.Guarded(id, bson.M{"version": bson.M{"$lt": version}}), bson.M{"$set": set}, options.Update().SetUpsert(true))
	switch {
	case mongo.IsDuplicateKeyError(err):
		return nil // another replica stored a newer version first
	case err != nil:
		d.counted.Store(false) // the write may have landed: count again
		return err
	}
	wasLiving := found && !held.Tombstoned
	tombstoned := found && held.Tombstoned
	if t, ok := set["tombstoned"].(bool); ok {
		tombstoned = t
	}
	switch {
	case wasLiving && tombstoned:
		d.living.Add(-1)
	case !wasLiving && !tombstoned:
		d.living.Add(1)
	}
	return nil
}

// Package slots is the rate limit counter of a world: a sliding log in the
// database, one document per counted request (a slot), its _id the key, the
// time it was counted and a random tail, so the slots of a key's last
// window are one range of _id.
//
// FerretDB v1 applies an update by reading and rewriting the document, so
// a counter document could lose increments between replicas; inserts and
// deletes of whole documents are atomic on every backend, so the log uses
// only those. Where replicas share the database a request inserts its slot
// first and then counts the window's range: if that finds more than the
// limit it deletes its slot and is refused. Of any requests accepted in
// one window, the last to insert saw all the others, so no window ever
// holds more than the limit (concurrent requests at the edge may both be
// refused, never both accepted; one that finds only such racers ahead of
// its place backs off a moment and tries again). Where this process is the only writer
// (the embedded default) the log in memory answers, loaded from the slots
// when the process starts, and a slot is queued for the next batched
// insert without the request waiting for it.
package slots

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/ratelimit"
)

// Collection holds the slots until they leave their window.
const Collection = "_ratelimits"

// Counter is a ratelimit.Counter in a world's database.
type Counter struct {
	coll   *mongo.Collection
	expiry *mongox.Expiry
	// inserts sends the slots of concurrent requests together: every
	// write of every service takes one or more.
	inserts *mongox.BatchedInserts
	// log answers when this process is the only writer; nil when
	// replicas share the database.
	log *ratelimit.Log
}

type slot struct {
	ID        string    `bson:"_id"`
	ExpiresAt time.Time `bson:"expires_at"`
}

// New prepares db's slots collection and its expiry, and on an exclusive
// database loads the slots still in their windows.
func New(ctx context.Context, db *mongox.DB, log *slog.Logger) (*Counter, error) {
	coll := db.Collection(Collection)
	// The slots still in their windows are loaded and tracked below: one
	// filtering sweep takes the rest.
	exp, err := mongox.NewExpiry(ctx, db, coll, 0, log)
	if err != nil {
		return nil, fmt.Errorf("rate limit slots: %w", err)
	}
	c := &Counter{coll: coll, expiry: exp, inserts: mongox.NewBatchedInserts(coll).WithLinger(mongox.QueueLinger)}
	if db.Exclusive() {
		if c.log, err = load(ctx, coll, exp); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func load(ctx context.Context, coll *mongo.Collection, exp *mongox.Expiry) (*ratelimit.Log, error) {
	cur, err := coll.Find(ctx, bson.M{mongox.ExpiresField: bson.M{"$gt": time.Now().UTC()}})
	if err != nil {
		return nil, fmt.Errorf("load rate limit slots: %w", err)
	}
	var slots []slot
	if err := cur.All(ctx, &slots); err != nil {
		return nil, fmt.Errorf("load rate limit slots: %w", err)
	}
	log := ratelimit.NewLog()
	for _, s := range slots {
		if key, at, ok := parse(s.ID); ok {
			log.Add(key, s.ID, at, s.ExpiresAt)
		}
		exp.Track(s.ID, s.ExpiresAt)
	}
	return log, nil
}

// Take implements ratelimit.Counter.
func (c *Counter) Take(ctx context.Context, key string, now time.Time, limit int, window time.Duration) (string, time.Duration, error) {
	c.expiry.Tick(time.Now())
	id := slotID(key, now)
	doc := slot{ID: id, ExpiresAt: now.Add(window).UTC()}
	if c.log != nil {
		// Reserved in memory first, so concurrent requests of one key
		// never pass the limit between them while the insert is on its way.
		if ok, wait := c.log.Reserve(key, id, now, limit, window); !ok {
			return "", wait, nil
		}
		// The log in memory is what counts here; the stored slot only has
		// to outlive a restart, so the request does not wait for it (a
		// graceful stop drains the queue; a crash forgets at most the
		// slots of the last moments, mongox.QueueLinger).
		c.expiry.Track(doc.ID, doc.ExpiresAt)
		if c.inserts.Queue(doc) {
			return id, 0, nil
		}
		if err := c.inserts.Insert(ctx, doc); err != nil {
			c.log.Remove(key, id)
			return "", 0, fmt.Errorf("take slot: %w", err)
		}
		return id, 0, nil
	}
	for attempt := 1; ; attempt++ {
		slot, wait, contended, err := c.takeShared(ctx, key, doc, now, limit, window)
		if !contended || attempt == contendedAttempts {
			return slot, wait, err
		}
		// Requests inserted at the same moment all saw each other: back off
		// a random moment, so that those with room get in one by one.
		select {
		case <-time.After(time.Duration(1+rand.IntN(5*attempt)) * time.Millisecond):
		case <-ctx.Done():
			return "", 0, ctx.Err()
		}
		doc.ID = slotID(key, now)
	}
}

// contendedAttempts bounds the tries of a request that found the window
// full only of requests counted at the same moment; then it is refused
// for a second.
const contendedAttempts = 5

// takeShared inserts the slot and then reads the window. Fewer than limit
// others: counted. Otherwise the slot is deleted, and contended says
// whether fewer than limit of the others sort before it (requests racing
// it, some of which will be refused too), when trying again may succeed.
func (c *Counter) takeShared(ctx context.Context, key string, doc slot, now time.Time, limit int, window time.Duration) (string, time.Duration, bool, error) {
	if err := c.inserts.Insert(ctx, doc); err != nil {
		return "", 0, false, fmt.Errorf("take slot: %w", err)
	}
	others, before, err := c.window(ctx, key, now, window, doc.ID)
	if err != nil {
		_ = c.Give(ctx, key, doc.ID)
		return "", 0, false, err
	}
	if len(others) < limit {
		return doc.ID, 0, false, nil
	}
	if err := c.Give(ctx, key, doc.ID); err != nil {
		return "", 0, false, err
	}
	if before < limit {
		return "", time.Second, true, nil
	}
	// One more fits once len(others)-limit+1 of the others left.
	return "", others[len(others)-limit].Add(window).Sub(now), false, nil
}

// window lists when the other slots of key in (now-window, …] were taken,
// oldest first, and how many of them sort before own.
func (c *Counter) window(ctx context.Context, key string, now time.Time, window time.Duration, own string) ([]time.Time, int, error) {
	// After key|<the window's start>|… and before key|: (':' sorts after
	// every digit), so exactly the key's slots taken inside the window.
	filter := bson.M{"_id": bson.M{"$gt": key + "|" + stamp(now.Add(-window)) + "|~", "$lt": key + "|:"}}
	cur, err := c.coll.Find(ctx, filter, options.Find().SetProjection(bson.M{"_id": 1}))
	if err != nil {
		return nil, 0, fmt.Errorf("count slots: %w", err)
	}
	var slots []slot
	if err := cur.All(ctx, &slots); err != nil {
		return nil, 0, fmt.Errorf("count slots: %w", err)
	}
	times := make([]time.Time, 0, len(slots))
	before := 0
	for _, s := range slots {
		if _, at, ok := parse(s.ID); ok && s.ID != own {
			times = append(times, at)
			if s.ID < own {
				before++
			}
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
	return times, before, nil
}

// Drain waits until the queued slots are stored, or ctx ends (a stopping
// process, before it closes the database).
func (c *Counter) Drain(ctx context.Context) error { return c.inserts.Flush(ctx) }

// Give implements ratelimit.Counter: the slot is deleted.
func (c *Counter) Give(ctx context.Context, key, id string) error {
	if c.log != nil {
		// The slot may still be queued: its insert must not land after
		// the delete.
		if err := c.inserts.Flush(ctx); err != nil {
			return fmt.Errorf("give back slot: %w", err)
		}
	}
	if _, err := c.coll.DeleteOne(ctx, bson.M{"_id": id}); err != nil {
		return fmt.Errorf("give back slot: %w", err)
	}
	if c.log != nil {
		c.log.Remove(key, id)
	}
	return nil
}

// slotID is key|time|random tail: unique, and sorted by time within a key.
func slotID(key string, at time.Time) string {
	return key + "|" + stamp(at) + "|" + strconv.FormatUint(rand.Uint64(), 36)
}

// stamp is a time as 19 digits of Unix nanoseconds: fixed width, so slot
// ids sort by time within a key.
func stamp(t time.Time) string { return fmt.Sprintf("%019d", t.UnixNano()) }

// parse splits a slot id into its key and time.
func parse(id string) (string, time.Time, bool) {
	rest, _, ok := cutLast(id)
	if !ok {
		return "", time.Time{}, false
	}
	key, digits, ok := cutLast(rest)
	if !ok || len(digits) != 19 {
		return "", time.Time{}, false
	}
	ns, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return "", time.Time{}, false
	}
	return key, time.Unix(0, ns), true
}

func cutLast(s string) (string, string, bool) {
	i := strings.LastIndexByte(s, '|')
	if i < 0 {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}

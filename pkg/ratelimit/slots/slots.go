// Package slots is the rate limit counter replicas share: a request takes a
// slot, a document with a unique _id key|window|i for i below the limit.
// FerretDB v1 applies an update by reading and rewriting the document, so a
// counter document with $inc could lose increments between replicas; an
// insert under a unique _id is atomic on every backend, so slots are: a
// duplicate key means the slot is taken and the next one is tried, and when
// every slot of the window is taken the request is refused (and counts
// nothing).
package slots

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/mongox"
)

// Collection holds the slots until their window has ended.
const Collection = "_ratelimits"

// Counter is a ratelimit.Counter on a shared database.
type Counter struct {
	coll   *mongo.Collection
	expiry *mongox.Expiry
	// next is, per key and window, the first slot this process has not seen
	// taken: the common case is one insert, and a replica that has not seen
	// the key yet counts the taken slots once instead of probing each.
	mu   sync.Mutex
	next map[string]int
}

type slot struct {
	ID        string    `bson:"_id"`
	ExpiresAt time.Time `bson:"expires_at"`
}

// New prepares db's slots collection and its expiry.
func New(ctx context.Context, db *mongox.DB, log *slog.Logger) (*Counter, error) {
	coll := db.Collection(Collection)
	exp, err := mongox.NewExpiry(ctx, coll, log)
	if err != nil {
		return nil, fmt.Errorf("rate limit slots: %w", err)
	}
	return &Counter{coll: coll, expiry: exp, next: map[string]int{}}, nil
}

// Take implements ratelimit.Counter.
func (c *Counter) Take(ctx context.Context, key string, window int64, limit int, expires time.Time) (string, error) {
	c.expiry.Tick(time.Now())
	prefix := key + "|" + strconv.FormatInt(window, 10) + "|"
	i, known := c.hint(prefix)
	counted := false
	if !known {
		n, err := c.taken(ctx, prefix)
		if err != nil {
			return "", err
		}
		i, counted = n, true
	}
	for i < limit {
		id := prefix + pad(i)
		_, err := c.coll.InsertOne(ctx, slot{ID: id, ExpiresAt: expires.UTC()})
		if err == nil {
			c.setHint(prefix, i+1)
			return id, nil
		}
		if !mongox.IsDuplicate(err) {
			return "", fmt.Errorf("take slot: %w", err)
		}
		i++
		if !counted {
			// Another replica has been taking slots: catch up at once
			// instead of probing them one by one.
			n, err := c.taken(ctx, prefix)
			if err != nil {
				return "", err
			}
			i, counted = max(i, n), true
		}
	}
	c.setHint(prefix, limit)
	return "", nil
}

// Give implements ratelimit.Counter: the slot is deleted, free to be taken
// again, and this process's next Take of the window tries it first.
func (c *Counter) Give(ctx context.Context, key string, window int64, id string) error {
	if _, err := c.coll.DeleteOne(ctx, bson.M{"_id": id}); err != nil {
		return fmt.Errorf("give back slot: %w", err)
	}
	prefix := key + "|" + strconv.FormatInt(window, 10) + "|"
	i, err := strconv.Atoi(strings.TrimPrefix(id, prefix))
	if err != nil {
		return nil //nolint:nilerr // the slot is given back; an id of another shape only leaves no hint
	}
	c.mu.Lock()
	if next, ok := c.next[prefix]; !ok || i < next {
		c.next[prefix] = i
	}
	c.mu.Unlock()
	return nil
}

// taken counts the slots of a key's window.
func (c *Counter) taken(ctx context.Context, prefix string) (int, error) {
	// Slot ids are prefix + digits, all below prefix + "~".
	n, err := c.coll.CountDocuments(ctx, bson.M{"_id": bson.M{"$gte": prefix, "$lt": prefix + "~"}})
	if err != nil {
		return 0, fmt.Errorf("count slots: %w", err)
	}
	return int(n), nil
}

// pad keeps slot ids in numeric order as strings, so a range over a
// window's prefix counts them.
func pad(i int) string { return fmt.Sprintf("%09d", i) }

func (c *Counter) hint(prefix string) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, ok := c.next[prefix]
	return i, ok
}

func (c *Counter) setHint(prefix string, i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.next) > 100_000 {
		// Old windows' hints only cost memory; a forgotten hint costs one count.
		c.next = map[string]int{}
	}
	c.next[prefix] = i
}

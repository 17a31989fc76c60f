package mongox_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
)

// doubter records notifications and doubts.
type doubter struct {
	mu       sync.Mutex
	notified []string
	doubted  []string
}

func (d *doubter) Notify(coll *mongo.Collection, id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.notified = append(d.notified, id)
}

func (d *doubter) Doubt(coll *mongo.Collection) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.doubted = append(d.doubted, coll.Name())
}

func (d *doubter) counts() (notified, doubted int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.notified), len(d.doubted)
}

// A write with events that fails without an answer (here its context ends
// between the read and the write, as a request deadline does when the
// database hangs) may still be stored: the notifier is told it is in doubt,
// since no Notify will name it.
func TestFailedWriteWithEventsIsInDoubt(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	n := &doubter{}
	docs := mongox.NewDocs[counter, note](kit.DB, "counters", n)
	c, err := docs.Create(ctx, "cnt", func(id string) (counter, []note, error) {
		return counter{ID: id, Owner: "ada"}, []note{{"created"}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if notified, doubted := n.counts(); notified != 1 || doubted != 0 {
		t.Fatalf("after a stored write: %d notified, %d in doubt; want 1, 0", notified, doubted)
	}

	wctx, cancel := context.WithCancel(ctx)
	docs.BeforeWrite = func(context.Context, string) { cancel() }
	_, err = docs.Update(wctx, c.ID, func(c *counter) ([]note, error) { c.Count++; return []note{{"counted"}}, nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("update whose context ended before the write: %v", err)
	}
	if notified, doubted := n.counts(); notified != 1 || doubted != 1 {
		t.Fatalf("after an update without an answer: %d notified, %d in doubt; want 1, 1", notified, doubted)
	}

	docs.BeforeWrite = nil
	dead, stop := context.WithCancel(ctx)
	stop()
	if _, err := docs.Insert(dead, "cnt_ended", counter{Owner: "bob"}, note{"created"}); err == nil {
		t.Fatal("an insert with an ended context succeeded")
	}
	if notified, doubted := n.counts(); notified != 1 || doubted != 2 {
		t.Fatalf("after an insert without an answer: %d notified, %d in doubt; want 1, 2", notified, doubted)
	}
}

// On an exclusive database a store keeps a Mirror by Written, which only
// hears of writes that answered: a write cut off by the request's deadline
// mid-way, then applied by the database, would leave the Mirror behind it
// for good. There the write, once sent, outlives the request's context (the
// database is the process's own); on a shared one it ends with it.
func TestWriteOutlivesItsRequestOnlyWhereAMirrorFollowsIt(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	docs := mongox.NewDocs[counter, note](kit.DB, "counters", nil)
	var heard []int
	docs.Written = func(_ string, c *counter) {
		if c != nil {
			heard = append(heard, c.Count)
		}
	}
	c, err := docs.Insert(ctx, "cnt_mirrored", counter{Owner: "ada"})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	docs.BeforeWrite = func(context.Context, string) { cancel() }
	_, err = docs.Update(wctx, c.ID, func(c *counter) ([]note, error) { c.Count = 7; return nil, nil })
	stored, gerr := docs.Get(ctx, c.ID)
	if gerr != nil {
		t.Fatal(gerr)
	}
	if kit.DB.Exclusive() {
		if err != nil || stored.Count != 7 || len(heard) != 2 || heard[1] != 7 {
			t.Fatalf("exclusive: update %v, stored count %d, Written heard %v; want the write done and heard", err, stored.Count, heard)
		}
		return
	}
	if !errors.Is(err, context.Canceled) || stored.Count != 0 || len(heard) != 1 {
		t.Fatalf("shared: update %v, stored count %d, Written heard %v; want the write cut off", err, stored.Count, heard)
	}
}

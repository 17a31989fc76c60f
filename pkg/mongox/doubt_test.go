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

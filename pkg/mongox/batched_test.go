package mongox_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
)

// One insert of several documents tells each its own answer: stored, its
// _id already stored, or its _id repeated within the batch.
func TestABatchAnswersEachDocument(t *testing.T) {
	kit := testkit.New(t)
	b := mongox.NewBatchedInserts(kit.DB.Collection("batched"))
	if err := b.Insert(kit.Ctx(), bson.M{"_id": "old"}); err != nil {
		t.Fatal(err)
	}
	errs := b.SendBatch(kit.Ctx(), []any{bson.M{"_id": "new-1"}, bson.M{"_id": "old"}, bson.M{"_id": "new-2"}, bson.M{"_id": "new-1"}})
	want := []bool{false, true, false, true} // duplicate?
	for i := range want {
		if dup := errors.Is(errs[i], mongox.ErrDuplicate); dup != want[i] || (!dup && errs[i] != nil) {
			t.Errorf("document %d: %v, want duplicate %v", i, errs[i], want[i])
		}
	}
}

// Concurrent callers, waiting and not, mixed: every document is stored
// once, every waiting caller hears its own answer, and they share inserts.
func TestConcurrentInsertsAreBatchedAndEachAnswered(t *testing.T) {
	kit := testkit.New(t)
	coll := kit.DB.Collection("batched")
	b := mongox.NewBatchedInserts(coll)
	const each = 150
	var wg sync.WaitGroup
	var mu sync.Mutex
	stored, dups := 0, 0
	for i := range each {
		wg.Add(3)
		go func() {
			defer wg.Done()
			if !b.Queue(bson.M{"_id": fmt.Sprintf("queued-%d", i)}) {
				t.Errorf("queued-%d was not taken", i)
			}
		}()
		for range 2 { // the same document twice: one is stored, one a duplicate
			go func() {
				defer wg.Done()
				err := b.Insert(kit.Ctx(), bson.M{"_id": fmt.Sprintf("waited-%d", i)})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					stored++
				case errors.Is(err, mongox.ErrDuplicate):
					dups++
				default:
					t.Errorf("waited-%d: %v", i, err)
				}
			}()
		}
	}
	wg.Wait()
	if stored != each || dups != each {
		t.Errorf("waiting callers: %d stored and %d duplicates, want %d each", stored, dups, each)
	}
	// Flush returns once the queued documents nobody waits for are stored.
	ctx, cancel := context.WithTimeout(kit.Ctx(), 10*time.Second)
	defer cancel()
	if err := b.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := coll.CountDocuments(kit.Ctx(), bson.M{}); err != nil || n != 2*each {
		t.Fatalf("stored %d documents after Flush (%v), want %d", n, err, 2*each)
	}
	if s := b.Sent(); s >= 3*each {
		t.Errorf("%d inserts for %d documents at once, want them batched", s, 3*each)
	} else {
		t.Logf("%d documents at once took %d inserts", 3*each, s)
	}
}

// Documents nobody waits for linger for company: however many are queued
// within the linger go in one insert, and Flush sends them at once.
func TestQueuedDocumentsLingerIntoOneInsert(t *testing.T) {
	kit := testkit.New(t)
	coll := kit.DB.Collection("batched")
	b := mongox.NewBatchedInserts(coll).WithLinger(time.Hour)
	for i := range 50 {
		if !b.Queue(bson.M{"_id": fmt.Sprintf("queued-%d", i)}) {
			t.Fatalf("queued-%d was not taken", i)
		}
	}
	ctx, cancel := context.WithTimeout(kit.Ctx(), 30*time.Second)
	defer cancel()
	if err := b.Flush(ctx); err != nil {
		t.Fatalf("Flush did not send the lingering batch: %v", err)
	}
	if n, err := coll.CountDocuments(kit.Ctx(), bson.M{}); err != nil || n != 50 {
		t.Fatalf("stored %d documents after Flush (%v), want 50", n, err)
	}
	if sent := b.Sent(); sent != 1 {
		t.Fatalf("%d inserts sent for 50 queued documents, want 1", sent)
	}
}

// A caller who waits for its answer does not wait out a linger: it joins
// the lingering batch and sends it.
func TestAWaitingCallerCutsTheLingerShort(t *testing.T) {
	kit := testkit.New(t)
	coll := kit.DB.Collection("batched")
	b := mongox.NewBatchedInserts(coll).WithLinger(time.Hour)
	if !b.Queue(bson.M{"_id": "queued"}) {
		t.Fatal("not queued")
	}
	ctx, cancel := context.WithTimeout(kit.Ctx(), 30*time.Second)
	defer cancel()
	if err := b.Insert(ctx, bson.M{"_id": "waited"}); err != nil {
		t.Fatalf("the waiting insert: %v", err)
	}
	if err := b.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := coll.CountDocuments(kit.Ctx(), bson.M{}); err != nil || n != 2 {
		t.Fatalf("stored %d documents (%v), want 2", n, err)
	}
	if sent := b.Sent(); sent != 1 {
		t.Fatalf("%d inserts sent, want the queued and the waiting document in one", sent)
	}
}

// Removals queued within the linger go in one delete, and Flush sends
// them at once; what was not queued stays.
func TestQueuedDeletesGoInOneCommand(t *testing.T) {
	kit := testkit.New(t)
	coll := kit.DB.Collection("batched")
	var docs []any
	for i := range 30 {
		docs = append(docs, bson.M{"_id": fmt.Sprintf("doc-%d", i)})
	}
	if _, err := coll.InsertMany(kit.Ctx(), docs); err != nil {
		t.Fatal(err)
	}
	var failures []error
	d := mongox.NewBatchedDeletes(coll, time.Hour, func(_ []string, err error) { failures = append(failures, err) })
	for i := range 20 {
		if !d.Queue(fmt.Sprintf("doc-%d", i)) {
			t.Fatalf("doc-%d was not queued", i)
		}
	}
	d.Flush(kit.Ctx())
	if n, err := coll.CountDocuments(kit.Ctx(), bson.M{}); err != nil || n != 10 {
		t.Fatalf("%d documents left after Flush (%v), want the 10 not queued", n, err)
	}
	if sent := d.Sent(); sent != 1 || len(failures) > 0 {
		t.Fatalf("%d deletes sent for 20 queued ids (failures %v), want 1", sent, failures)
	}
}

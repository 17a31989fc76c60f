package mongoledger_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/auth/mongoledger"
	"sharedworld.dev/pkg/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// TestConcurrentFirstUsesAreEachAnsweredOnce: many requests at once, some
// presenting the same signature; every signature is a first use exactly
// once and stored once, whatever batches the requests fell into.
func TestConcurrentFirstUsesAreEachAnsweredOnce(t *testing.T) {
	kit := testkit.New(t)
	l, err := mongoledger.New(kit.Ctx(), kit.DB, kit.Logger)
	if err != nil {
		t.Fatal(err)
	}
	const keys, copies = 150, 4
	expires := time.Now().Add(time.Minute)
	var mu sync.Mutex
	firsts := map[string]int{}
	var wg sync.WaitGroup
	for c := range copies {
		for k := range keys {
			wg.Add(1)
			go func() {
				defer wg.Done()
				key := fmt.Sprintf("sig-%d", (k*7+c*31)%keys)
				first, err := l.FirstUse(kit.Ctx(), key, expires)
				if err != nil {
					t.Errorf("first use of %s: %v", key, err)
				}
				if first {
					mu.Lock()
					firsts[key]++
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if len(firsts) != keys {
		t.Errorf("%d signatures were a first use, want all %d", len(firsts), keys)
	}
	for key, n := range firsts {
		if n != 1 {
			t.Errorf("%s was a first use %d times", key, n)
		}
	}
	if b := l.Batches(); b >= keys*copies {
		t.Errorf("%d requests at once took %d inserts, want them batched", keys*copies, b)
	} else {
		t.Logf("%d requests at once took %d inserts", keys*copies, b)
	}
	stored, err := kit.DB.Collection(mongoledger.SignaturesCollection).CountDocuments(context.Background(), bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	if stored != keys {
		t.Errorf("stored %d signatures, want %d", stored, keys)
	}
}

// TestRecordedSignaturesLandWithTheWaitingOnes: reads record their
// signatures without waiting, mixed with writes that wait; every signature
// is stored once, the waiting ones are each answered as first uses, and a
// recorded signature presented again is a replay.
func TestRecordedSignaturesLandWithTheWaitingOnes(t *testing.T) {
	kit := testkit.New(t)
	l, err := mongoledger.New(kit.Ctx(), kit.DB, kit.Logger)
	if err != nil {
		t.Fatal(err)
	}
	const each = 120
	expires := time.Now().Add(time.Minute)
	var wg sync.WaitGroup
	for i := range each {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if first, err := l.Record(kit.Ctx(), fmt.Sprintf("read-%d", i), expires); err != nil || !first {
				t.Errorf("read-%d: first %v err %v, want a first use", i, first, err)
			}
		}()
		go func() {
			defer wg.Done()
			key := fmt.Sprintf("write-%d", i)
			first, err := l.FirstUse(kit.Ctx(), key, expires)
			if err != nil || !first {
				t.Errorf("%s: first %v err %v, want a first use", key, first, err)
			}
		}()
	}
	wg.Wait()
	coll := kit.DB.Collection(mongoledger.SignaturesCollection)
	testkit.Eventually(t, 10*time.Second, "every read's and write's signature stored", func() bool {
		n, err := coll.CountDocuments(kit.Ctx(), bson.M{})
		return err == nil && n == 2*each
	})
	if first, err := l.FirstUse(kit.Ctx(), "read-7", expires); err != nil || first {
		t.Errorf("a recorded read's signature presented again by a write: first %v err %v, want a replay", first, err)
	}
	if first, err := l.Record(kit.Ctx(), "write-7", expires); err != nil || first {
		t.Errorf("a write's signature presented again by a read: first %v err %v, want a replay", first, err)
	}
}

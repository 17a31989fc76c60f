package mongox_test

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestEnsureIndexesTwiceKeepsWorking(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	coll := kit.DB.Collection("things")
	idx := []mongoIndex{
		mongox.Index("by_owner", true, bson.E{Key: "owner", Value: 1}),
		mongox.Index("by_a_b", false, bson.E{Key: "a", Value: 1}, bson.E{Key: "b", Value: -1}),
	}
	for range 2 { // a restart runs it again
		if err := mongox.EnsureIndexes(ctx, coll, idx...); err != nil {
			t.Fatalf("ensure indexes: %v", err)
		}
	}
	if _, err := coll.InsertOne(ctx, bson.M{"owner": "x"}); err != nil {
		t.Fatal(err)
	}
	_, err := coll.InsertOne(ctx, bson.M{"owner": "x"})
	if !mongox.IsDuplicate(err) {
		t.Fatalf("the unique index must refuse a second owner (not as an _id clash): %v", err)
	}
}

type mongoIndex = mongo.IndexModel

func TestFindAllDecodesEveryMatchAndNeverNil(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	coll := kit.DB.Collection("found")
	none, err := mongox.FindAll[bson.M](ctx, coll, bson.M{})
	if err != nil || none == nil || len(none) != 0 {
		t.Fatalf("no match must give an empty, non-nil slice: %#v %v", none, err)
	}
	for i := range 3 {
		if _, err := coll.InsertOne(ctx, bson.M{"_id": fmt.Sprint(i), "n": i}); err != nil {
			t.Fatal(err)
		}
	}
	type row struct {
		N int `bson:"n"`
	}
	rows, err := mongox.FindAll[row](ctx, coll, bson.M{"n": bson.M{"$gte": 1}})
	if err != nil || len(rows) != 2 || rows[0].N+rows[1].N != 3 {
		t.Fatalf("FindAll: %+v %v", rows, err)
	}
}

// Many distinct keys held at once never block each other (a striped set of
// mutexes would make some of them share one and deadlock a nested taker).
func TestLocksDistinctKeysNeverShareAMutex(t *testing.T) {
	l := mongox.NewLocks()
	var unlocks []func()
	for i := range 10_000 {
		unlocks = append(unlocks, l.Lock(fmt.Sprint("key-", i)))
	}
	for _, u := range unlocks {
		u()
	}
	done := make(chan struct{})
	unlock := l.Lock("a")
	go func() { l.Lock("a")(); close(done) }()
	select {
	case <-done:
		t.Fatal("a second taker of one key must wait for the first")
	default:
	}
	unlock()
	<-done
}

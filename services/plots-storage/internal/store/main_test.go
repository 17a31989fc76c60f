package store

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/pkg/testkit"
)

// The store's contract tests run each repository through the interface the
// use cases hold, in whichever backend mode the test kit is in (make test
// runs both), and play another replica on a shared handle where a version
// guard has to decide.

func TestMain(m *testing.M) { testkit.Main(m) }

// outboxOf returns the events document id of coll carries.
func outboxOf(t *testing.T, coll *mongo.Collection, id string) []events.Event {
	t.Helper()
	var d struct {
		Outbox []events.Event `bson:"_outbox"`
	}
	if err := coll.FindOne(context.Background(), bson.M{"_id": id}).Decode(&d); err != nil {
		t.Fatalf("read the outbox of %s: %v", id, err)
	}
	return d.Outbox
}

// wantKind fails unless err is a problem of kind k.
func wantKind(t *testing.T, err error, k problem.Kind, what string) {
	t.Helper()
	if pe, ok := problem.As(err); !ok || pe.Kind != k {
		t.Fatalf("%s: want a problem of kind %d, got %v", what, k, err)
	}
}

// concurrently runs f(0..n-1) at once and waits for all.
func concurrently(n int, f func(i int)) {
	start := make(chan struct{})
	done := make(chan struct{}, n)
	for i := range n {
		go func() {
			defer func() { done <- struct{}{} }()
			<-start
			f(i)
		}()
	}
	close(start)
	for range n {
		<-done
	}
}

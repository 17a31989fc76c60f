package mongox

import (
	"errors"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/x/mongo/driver/topology"

	"sharedworld.dev/pkg/problem"
)

type clearedPool struct{}

func (clearedPool) Error() string   { return "connection pool was cleared" }
func (clearedPool) Retryable() bool { return true }

// Every way the driver reports a database that is down or hanging is an
// outage (the HTTP layer's 503 with Retry-After), never a 500: registered
// with problem at init, so it holds through any wrapping.
func TestUnreachableDatabaseIsUnavailable(t *testing.T) {
	cases := map[string]error{
		"client disconnected":      mongo.ErrClientDisconnected,
		"server selection":         topology.ServerSelectionError{Wrapped: errors.New("no reachable servers")},
		"server selection timeout": topology.ErrServerSelectionTimeout,
		"cleared pool":             clearedPool{},
		"retryable write label":    mongo.CommandError{Code: 91, Message: "shutting down", Labels: []string{"RetryableWriteError"}},
		"network label":            mongo.CommandError{Message: "reset", Labels: []string{"NetworkError"}},
	}
	for name, err := range cases {
		t.Run(name, func(t *testing.T) {
			wrapped := fmt.Errorf("store garden file: %w", err)
			if !problem.IsOutage(wrapped) {
				t.Fatalf("%v is not an outage", wrapped)
			}
		})
	}
	if problem.IsOutage(errors.New("a bug")) {
		t.Fatal("a plain error is not an outage")
	}
	if problem.IsOutage(mongo.CommandError{Code: 11000, Message: "duplicate key"}) {
		t.Fatal("a duplicate key is not an outage")
	}
}

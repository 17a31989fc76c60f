package store

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/plots-storage/internal/app"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// The store's contract tests run each repository through the interface the
// use cases hold, against both adapters (testkit.EachAdapter) in whichever
// backend mode the test kit is in (make test runs both), and play another
// replica on a shared handle where a version guard has to decide (the
// MongoDB adapter alone: the mirrored one is its database's only writer).

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

// The adapters of each store as the service is given them (service.go),
// built by EachAdapter on a fresh view of the kit's database: the
// MongoDB one and the mirrored one.

type plotsAdapter interface {
	app.Plots
	ClaimedIn(ctx context.Context, sq domain.Square) ([]domain.Coordinates, error)
	OutboxCollection() *mongo.Collection
	EnsureIndexes(context.Context) error
}

func newMongoPlots(db *mongox.DB) plotsAdapter    { return NewPlots(db, nil) }
func newMirroredPlots(db *mongox.DB) plotsAdapter { return NewMirroredPlots(db, nil) }

type filesAdapter interface {
	app.Files
	OutboxCollection() *mongo.Collection
	EnsureIndexes(context.Context) error
	docs(plotID string) *docs[fileDoc]
	headTenancies(ctx context.Context) ([]string, error)
	blobTenancies(ctx context.Context) ([]string, error)
}

func newMongoFiles(db *mongox.DB) filesAdapter    { return NewFiles(db, nil) }
func newMirroredFiles(db *mongox.DB) filesAdapter { return NewMirroredFiles(db, nil) }

type backupsAdapter interface {
	app.Backups
	EnsureIndexes(context.Context) error
	usedSlots(ctx context.Context, owner string) (map[int]bool, error)
}

func newMongoBackups(db *mongox.DB) backupsAdapter    { return NewBackups(db) }
func newMirroredBackups(db *mongox.DB) backupsAdapter { return NewMirroredBackups(db) }

func newMongoUsage(db *mongox.DB) app.Usage    { return NewUsage(db) }
func newMirroredUsage(db *mongox.DB) app.Usage { return NewMirroredUsage(db) }

// ensured is repo with its indexes made (and its copies loaded).
func ensured[R interface{ EnsureIndexes(context.Context) error }](t *testing.T, repo R) R {
	t.Helper()
	if err := repo.EnsureIndexes(context.Background()); err != nil {
		t.Fatal(err)
	}
	return repo
}

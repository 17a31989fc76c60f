package tickets_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/embedded"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/tickets"
)

var benchSizes = flag.String("tickets.sizes", "10000,100000", "comma-separated numbers of stored tickets for BenchmarkListTickets")

// BenchmarkListTickets measures GET /api/world/tickets through the router
// with many tickets stored: the first page, and a page nine tenths deep in
// the cursor chain (with and without a status filter). The cursor is a
// position bound, not an offset, so the deep page should cost what the first
// one does.
//
//	go test -run '^$' -bench BenchmarkListTickets -benchtime 1x .
func BenchmarkListTickets(b *testing.B) {
	for _, field := range strings.Split(*benchSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || n < 100 {
			b.Fatalf("-tickets.sizes: %q is not a count of at least 100", field)
		}
		b.Run(fmt.Sprintf("tickets=%d", n), func(b *testing.B) { benchmarkList(b, n) })
	}
}

func benchmarkList(b *testing.B, n int) {
	kit := testkit.New(b)
	deps := kit.Deps(clock.NewFixed(start))
	// Its own FerretDB with a socket timeout long enough for full scans:
	// FerretDB v1 answers every query but an _id lookup by reading the whole
	// collection, which at this size outlasts the kit's 30 s timeout.
	deps.DB = longTimeoutDB(b)
	// Seeded before the service starts, as a restart finds them: on the
	// embedded backend the service loads its in-memory list index at start.
	ids, times := seedTickets(b, deps.DB.Collection("tickets"), n)
	started := time.Now()
	svc, err := tickets.New(kit.Ctx(), deps, tickets.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("service start with %d stored tickets: %v", n, time.Since(started).Round(time.Millisecond))
	app := kit.App(svc)

	// The cursor the chain of 50-ticket pages carries after 90 % of the list:
	// the position of the ticket at that depth.
	deep := n / 10
	cursor := httpx.EncodeCursor(struct {
		T  int64  `json:"t"`
		ID string `json:"id"`
	}{times[deep].UnixMilli(), ids[deep]})

	pages := []struct{ name, query, firstID string }{
		{"first_page", "", ids[n-1]},
		{"deep_page", "?cursor=" + url.QueryEscape(cursor), ids[deep-1]},
		{"deep_page_status_open", "?status=open&cursor=" + url.QueryEscape(cursor), ""},
	}
	for _, p := range pages {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				r := testkit.Do(b, app, testkit.Request{Method: http.MethodGet, Path: "/api/world/tickets" + p.query})
				if r.Status != 200 || r.Body["pagination"].(map[string]any)["count"] != float64(50) {
					b.Fatalf("page %s: %d %.300s", p.name, r.Status, r.Raw)
				}
				if first := r.Body["tickets"].([]any)[0].(map[string]any)["ticket_id"]; p.firstID != "" && first != p.firstID {
					b.Fatalf("page %s starts at %v, want %s", p.name, first, p.firstID)
				}
			}
		})
	}
}

func longTimeoutDB(b *testing.B) *mongox.DB {
	b.Helper()
	m, err := embedded.StartMongo(context.Background(), b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(m.Stop)
	client, err := mongo.Connect(context.Background(), options.Client().ApplyURI(m.URI).SetSocketTimeout(10*time.Minute).SetRetryWrites(false))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	db := mongox.NewDB(client.Database("bench"), mongox.Exclusive)
	db.UseScanner(m) // as the local runner does: the copy fills from FerretDB's file
	return db
}

// seedTickets stores n tickets straight into the tickets collection (filing
// them through the API would need n/5 citizens and a day each), one
// millisecond apart, five a filer in slots 1 to 5 of the day, and returns
// their ids and times in filing order.
func seedTickets(b *testing.B, coll *mongo.Collection, n int) ([]string, []time.Time) {
	b.Helper()
	statuses := []string{"open", "acknowledged", "resolved"}
	categories := []string{"bug", "docs", "feature"}
	ids := make([]string, n)
	times := make([]time.Time, n)
	batch := make([]any, 0, 1000)
	flush := func() {
		if len(batch) == 0 {
			return
		}
		if _, err := coll.InsertMany(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
		batch = batch[:0]
	}
	for i := range n {
		ids[i] = fmt.Sprintf("tkt_%08x", i)
		times[i] = start.Add(time.Duration(i) * time.Millisecond)
		// in a fixed field order, as the store writes its struct
		batch = append(batch, bson.D{
			{Key: "_id", Value: ids[i]}, {Key: "category", Value: categories[i%3]}, {Key: "title", Value: fmt.Sprintf("Ticket number %d", i)},
			{Key: "description", Value: "A description of a realistic length, a sentence or two about what went wrong and how to see it."},
			{Key: "severity", Value: "normal"}, {Key: "status", Value: statuses[(i/3)%3]}, {Key: "created_at", Value: times[i]}, {Key: "updated_at", Value: times[i]},
			{Key: "upvotes", Value: int64(i % 7)}, {Key: "upvoters", Value: bson.A{}}, {Key: "filed_by", Value: fmt.Sprintf("emb_%024x", i/5)}, {Key: "day", Value: times[i].Format(time.DateOnly)},
			{Key: "slot", Value: i%5 + 1}, {Key: "response", Value: ""}, {Key: "version", Value: int64(1)},
		})
		if len(batch) == cap(batch) {
			flush()
		}
	}
	flush()
	return ids, times
}

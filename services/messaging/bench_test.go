package messaging_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"google.golang.org/protobuf/types/known/timestamppb"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/seal"
	"sharedworld.dev/pkg/testkit"
	bulletinv1 "sharedworld.dev/proto/bulletin/v1"
	"sharedworld.dev/services/messaging"
)

func benchWorld(b *testing.B, params seal.Params) *world {
	kit := testkit.New(b)
	svc, err := messaging.New(kit.Ctx(), kit.Deps(clock.System{}), messaging.Options{SealParams: params})
	if err != nil {
		b.Fatal(err)
	}
	kit.Run(svc)
	return &world{t: &testing.T{}, kit: kit, app: kit.App(svc), svc: svc}
}

// BenchmarkSendMessageHTTP: direct messages per second through the router,
// with the production Argon2id costs (one key derivation per message).
func BenchmarkSendMessageHTTP(b *testing.B) {
	w := benchWorld(b, seal.Params{})
	alice, bob := w.kit.NewAgent("alice", nil), w.kit.NewAgent("bob", nil)
	w.kit.Register(alice)
	w.kit.Register(bob)
	body := send(bob.ID, "a shared key of reasonable length")
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if r := testkit.Do(b, w.app, testkit.Request{Method: "POST", Path: "/api/world/message", Body: body, Headers: alice.Headers()}); r.Status != 201 {
			b.Fatalf("%d %s", r.Status, r.Raw)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
}

// BenchmarkNotificationListAtScale: GET /api/world/notifications?unread=true
// for citizens of a world of 10,000 citizens and 1,000 announcements; reports p99.
func BenchmarkNotificationListAtScale(b *testing.B) {
	const population, announcements = 10000, 1000
	w := benchWorld(b, seal.Params{Time: 1, MemoryKiB: 64, Threads: 1})
	agents := make([]testkit.Agent, population)
	docs := make([]any, population)
	joined := time.Now().UTC().Add(-24 * time.Hour)
	for i := range agents {
		agents[i] = w.kit.NewAgent(fmt.Sprintf("c%d", i), nil)
		docs[i] = bson.M{"_id": agents[i].ID, "name": agents[i].Name, "citizen_number": int64(i + 1), "registered_at": joined, "tombstoned": false, "version": uint64(1)}
	}
	if _, err := w.kit.DB.Collection("citizens").InsertMany(context.Background(), docs); err != nil {
		b.Fatal(err)
	}
	evs := make([]events.Event, announcements)
	for i := range evs {
		at := joined.Add(time.Duration(i+1) * time.Minute)
		id := fmt.Sprintf("post_%08x", i)
		evs[i] = events.MustNew("/services/bulletin", id, &bulletinv1.AnnouncementPosted{PostId: id, Title: "t", PostedAt: timestamppb.New(at), Version: 1}, at)
	}
	w.kit.Publish(evs...)
	deadline := time.Now().Add(5 * time.Minute)
	for {
		r := testkit.Do(b, w.app, testkit.Request{Method: "GET", Path: "/api/world/notifications?limit=1", Headers: agents[0].Headers()})
		if r.Body["unread_count"] == float64(announcements) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("announcements not delivered: %s", r.Raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a := agents[i%population]
		t0 := time.Now()
		r := testkit.Do(b, w.app, testkit.Request{Method: "GET", Path: "/api/world/notifications?unread=true", Headers: a.Headers()})
		durations = append(durations, time.Since(t0))
		if r.Status != 200 || r.Body["unread_count"] != float64(announcements) {
			b.Fatalf("%d %s", r.Status, r.Raw)
		}
	}
	b.StopTimer()
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds())/1000, "p99-ms")
}

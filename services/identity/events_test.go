package identity_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/proto/catalog"
	identityv1 "sharedworld.dev/proto/identity/v1"
)

func TestCitizenEventsReachKafka(t *testing.T) {
	w := newWorld(t)
	a := w.kit.NewAgent("Ev", nil)
	w.register(t, a, map[string]any{"name": "Eve"}).ExpectStatus(t, 201)
	w.do(t, http.MethodPut, "/api/world/profile", map[string]any{"name": "Eva"}, a.Headers()).ExpectStatus(t, 200)
	w.do(t, http.MethodPost, "/api/admin/citizens/"+a.ID+"/tombstone", nil, map[string]string{"Authorization": "Bearer " + testkit.AmbassadorToken}).ExpectStatus(t, 200)

	var mu sync.Mutex
	var got []events.Event
	cons := events.NewConsumer(events.ConsumerOptions{Service: "probe", Group: "probe", Topics: []string{catalog.TopicIdentity}, Brokers: w.kit.Brokers,
		Handler: func(_ context.Context, e events.Event) error {
			mu.Lock()
			got = append(got, e)
			mu.Unlock()
			return nil
		}})
	go func() { _ = cons.Run(w.kit.Ctx()) }()
	testkit.Eventually(t, 20*time.Second, "three citizen events on world.identity", func() bool { mu.Lock(); defer mu.Unlock(); return len(got) >= 3 })

	mu.Lock()
	defer mu.Unlock()
	want := []string{catalog.TypeCitizenRegistered, catalog.TypeCitizenUpdated, catalog.TypeCitizenTombstoned}
	for i, e := range got[:3] {
		if e.Type != want[i] || e.Subject != a.ID || e.Source != "/services/identity" {
			t.Fatalf("event %d: type %s subject %s source %s", i, e.Type, e.Subject, e.Source)
		}
	}
	m, err := got[0].Decode()
	if err != nil {
		t.Fatal(err)
	}
	reg := m.(*identityv1.CitizenRegistered)
	if reg.GetName() != "Eve" || reg.GetCitizenNumber() != 1 || reg.GetVersion() != 1 {
		t.Fatalf("citizen.registered payload: %v", reg)
	}
	upd, _ := got[1].Decode()
	if upd.(*identityv1.CitizenUpdated).GetName() != "Eva" || upd.(*identityv1.CitizenUpdated).GetVersion() != 2 {
		t.Fatalf("citizen.updated payload: %v", upd)
	}
	tomb, _ := got[2].Decode()
	if tomb.(*identityv1.CitizenTombstoned).GetVersion() != 3 {
		t.Fatalf("citizen.tombstoned payload: %v", tomb)
	}
	// The lookup other services cache from answers on the events' scale: a
	// cached answer at a higher version would outrank the tombstone event.
	if c, found, err := w.svc.Citizens().Lookup(w.kit.Ctx(), a.ID); err != nil || !found || !c.Tombstoned || c.Version != 3 {
		t.Fatalf("lookup after the tombstone: %+v %v %v, want tombstoned at version 3", c, found, err)
	}
}

func TestInternalLookupAndPresence(t *testing.T) {
	w := newWorld(t)
	a := w.kit.NewAgent("In", nil)
	w.register(t, a, map[string]any{"name": "Inga"}).ExpectStatus(t, 201)
	internal := w.kit.App(w.svc)
	w.svc.InternalRoutes(internal)
	r := testkit.Do(t, internal, testkit.Request{Method: "GET", Path: "/internal/citizens/" + a.ID})
	cit := r.Body["citizen"].(map[string]any)
	if cit["name"] != "Inga" || cit["tombstoned"] != false || cit["citizen_number"] != float64(1) {
		t.Fatalf("internal lookup: %s", r.Raw)
	}
	testkit.Do(t, internal, testkit.Request{Method: "GET", Path: "/internal/citizens/emb_000000000000000000000000"}).ExpectError(t, 404, "not_found")

	now := time.Now().UTC()
	testkit.Do(t, internal, testkit.Request{Method: "POST", Path: "/internal/presence", Body: map[string]any{
		"sightings": []map[string]any{{"agent_id": a.ID, "signed": true, "at": now}}}}).ExpectStatus(t, 200)
	r = w.do(t, http.MethodGet, "/api/world/whoami", nil, a.Headers())
	if r.Body["online"] != true {
		t.Fatalf("a signed sighting reported by another service must make the citizen online: %s", r.Raw)
	}
}

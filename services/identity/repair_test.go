package identity_test

import (
	"net/http"
	"testing"
	"time"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/identity"
	"sharedworld.dev/services/identity/internal/domain"
	"sharedworld.dev/services/identity/internal/store"
)

// A crash between claiming an agent_id and numbering it leaves a pending
// claim; the next start finishes the registration.
func TestInterruptedRegistrationCompletesAtStart(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	deps := kit.Deps(nil)
	deps.Citizens = nil
	a := kit.NewAgent("Crash", nil)
	claims := citizenStore(deps.DB)
	if err := claims.Claim(ctx, domain.NewPending(a.ID, domain.Profile{Name: "Crash"}, time.Now().Add(-2*time.Minute))); err != nil {
		t.Fatal(err)
	}
	svc, err := identity.New(ctx, deps, identity.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := testkit.Do(t, kit.App(svc), testkit.Request{Method: http.MethodGet, Path: "/api/world/citizens/" + a.ID})
	r.ExpectStatus(t, 200)
	if r.Body["name"] != "Crash" || r.Body["citizen_number"] != float64(1) {
		t.Fatalf("the interrupted registration was not completed: %s", r.Raw)
	}
	c, _, err := claims.Get(ctx, a.ID)
	if err != nil || c.Version != 1 {
		t.Fatalf("completed as version 1 (citizen.registered): %+v %v", c, err)
	}
}

// A crash between claim and numbering whose caller retries before any
// restart: the retry finishes the registration (201) instead of answering
// 409 already_registered for an agent whoami calls unregistered; a repeat
// after that is the ordinary 409.
func TestRetriedRegistrationFinishesAnInterruptedOne(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	deps := kit.Deps(nil)
	deps.Citizens = nil
	svc, err := identity.New(ctx, deps, identity.Options{})
	if err != nil {
		t.Fatal(err)
	}
	app := kit.App(svc)
	a := kit.NewAgent("Retry", nil)
	claims := citizenStore(deps.DB)
	if err := claims.Claim(ctx, domain.NewPending(a.ID, domain.Profile{Name: "Retry"}, time.Now())); err != nil {
		t.Fatal(err)
	}
	register := testkit.Request{Method: http.MethodPost, Path: "/api/world/register", Headers: a.Headers(), Body: map[string]any{"name": "Retry"}}
	r := testkit.Do(t, app, register)
	r.ExpectStatus(t, http.StatusCreated)
	who := testkit.Do(t, app, testkit.Request{Method: http.MethodGet, Path: "/api/world/whoami", Headers: a.Headers()})
	if who.Body["registered"] != true {
		t.Fatalf("after the retry the agent is a citizen: %s", who.Raw)
	}
	testkit.Do(t, app, register).ExpectError(t, http.StatusConflict, "already_registered")
}

// citizenStore is the adapter the service uses on db, for a test that
// writes citizens beside it: on an exclusive database the mirrored one,
// whose writes reach the service's in-memory copy (one copy per database
// handle).
func citizenStore(db *mongox.DB) domain.Repository {
	if db.Exclusive() {
		return store.NewMirroredCitizens(db, nil)
	}
	return store.NewCitizens(db, nil)
}

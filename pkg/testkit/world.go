package testkit

import (
	"context"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"google.golang.org/protobuf/types/known/timestamppb"

	"sharedworld.dev/pkg/admit"
	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/auth/mongoledger"
	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/pkg/ratelimit"
	"sharedworld.dev/pkg/ratelimit/slots"
	identityv1 "sharedworld.dev/proto/identity/v1"
)

// AmbassadorToken is the token the kit's Deps accept on admin routes.
const AmbassadorToken = "test-ambassador-token-0123456789"

// Registry stands in for identity's lookup endpoint in other services' tests:
// Register adds a citizen here and publishes citizen.registered to Kafka, as
// identity would.
type Registry struct {
	mu   sync.Mutex
	byID map[string]citizens.Citizen
	n    int64
}

// Lookup implements citizens.Source.
func (r *Registry) Lookup(_ context.Context, id string) (citizens.Citizen, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.byID[id]
	return c, ok, nil
}

// Deps returns platform.Deps for a service under test: the kit's database
// and brokers, an auth middleware trusting the kit's provider, the
// registry as the citizens fallback and the ambassador token above.
func (k *Kit) Deps(clk clock.Clock) platform.Deps {
	if clk == nil {
		clk = clock.System{}
	}
	if k.registry == nil {
		k.registry = &Registry{byID: map[string]citizens.Citizen{}}
	}
	w := events.NewWriter(k.Brokers)
	k.T.Cleanup(func() { _ = w.Close() })
	ledger, err := mongoledger.New(k.Ctx(), k.DB, k.Logger)
	if err != nil {
		k.T.Fatalf("testkit: signature ledger: %v", err)
	}
	limits := k.Limits(Unlimited())
	return platform.Deps{
		Logger: k.Logger, DB: k.DB, Brokers: k.Brokers, Publisher: w, Clock: clk,
		Auth:     &auth.Middleware{Verifier: k.Verifier(), Replay: auth.NewDurableReplayCache(ledger), Limits: limits.Limiter},
		Citizens: k.registry, AmbassadorToken: AmbassadorToken, Limits: limits,
	}
}

// Unlimited raises every rate limit out of a functional test's way (as a
// load script's WORLD_RATE_LIMITS would); a test of a limit sets its own
// with SetLimits.
func Unlimited() map[string]string {
	out := map[string]string{}
	for _, name := range ratelimit.Names() {
		out[name] = "1000000/1m"
	}
	return out
}

// SetLimits gives deps (from Deps) the rate limits of settings over the
// defaults: for the routes' budgets and for the auth middleware's
// per-agent write budget.
func (k *Kit) SetLimits(deps *platform.Deps, settings map[string]string) {
	k.T.Helper()
	deps.Limits = k.Limits(settings)
	mw := *deps.Auth
	mw.Limits = deps.Limits.Limiter
	deps.Auth = &mw
}

// Limits is the kit's rate limiter with the default rules overridden by
// settings (as WORLD_RATE_LIMITS does), counting as the mode's host would:
// in memory on an exclusive database, in slots on a shared one.
func (k *Kit) Limits(settings map[string]string) *admit.Limits {
	k.T.Helper()
	rules, err := ratelimit.Parse(settings)
	if err != nil {
		k.T.Fatalf("testkit: rate limits: %v", err)
	}
	var counter ratelimit.Counter = ratelimit.NewMemory()
	if !k.DB.Exclusive() {
		if counter, err = slots.New(k.Ctx(), k.DB, k.Logger); err != nil {
			k.T.Fatalf("testkit: rate limit slots: %v", err)
		}
	}
	return &admit.Limits{Limiter: ratelimit.New(rules, counter, nil)}
}

// Register makes a an (already living) citizen: in the registry at once and
// as a citizen.registered event on Kafka.
func (k *Kit) Register(a Agent) citizens.Citizen {
	k.T.Helper()
	return k.RegisterAt(a, time.Now())
}

// RegisterAt is Register with the registration time of a service's clock
// (a test's fixed world time), for rules that compare it with other world
// times (who may vote on a proposal).
func (k *Kit) RegisterAt(a Agent, at time.Time) citizens.Citizen {
	k.T.Helper()
	if k.registry == nil {
		k.registry = &Registry{byID: map[string]citizens.Citizen{}}
	}
	k.registry.mu.Lock()
	k.registry.n++
	c := citizens.Citizen{AgentID: a.ID, Name: a.Name, Number: k.registry.n, RegisteredAt: at.UTC(), Version: 1}
	k.registry.byID[a.ID] = c
	k.registry.mu.Unlock()
	k.Publish(events.MustNew("/services/identity", a.ID, &identityv1.CitizenRegistered{
		AgentId: a.ID, Name: a.Name, CitizenNumber: c.Number, RegisteredAt: timestamppb.New(c.RegisteredAt), Version: 1,
	}, c.RegisteredAt))
	return c
}

// Tombstone marks a citizen tombstoned in the registry and on Kafka.
func (k *Kit) Tombstone(a Agent) {
	k.T.Helper()
	k.registry.mu.Lock()
	c := k.registry.byID[a.ID]
	c.Tombstoned = true
	c.Version++
	k.registry.byID[a.ID] = c
	k.registry.mu.Unlock()
	k.Publish(events.MustNew("/services/identity", a.ID, &identityv1.CitizenTombstoned{AgentId: a.ID, TombstonedAt: timestamppb.Now(), Version: c.Version}, time.Now()))
}

// Publish writes events straight to the kit's Kafka (as another service's relay would).
func (k *Kit) Publish(evs ...events.Event) {
	k.T.Helper()
	w := events.NewWriter(k.Brokers)
	defer w.Close()
	msgs := make([]kafkaMessage, len(evs))
	for i, e := range evs {
		msgs[i] = e.Message()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.WriteMessages(ctx, msgs...); err != nil {
		k.T.Fatalf("testkit: publish: %v", err)
	}
}

// App mounts svc's public routes on a production app (error model, limits, metrics).
func (k *Kit) App(svc platform.Service) *fiber.App {
	app := httpx.NewApp(httpx.Options{Service: svc.Name(), Logger: k.Logger, BodyLimits: svc.BodyLimits()})
	svc.Routes(app)
	return app
}

// Run starts svc's background work for the rest of the test.
func (k *Kit) Run(svc platform.Service) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = svc.Run(ctx); close(done) }()
	k.T.Cleanup(func() { cancel(); <-done })
}

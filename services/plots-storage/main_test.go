package plotsstorage_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/pkg/seal"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/proto/catalog"
	plotsstorage "sharedworld.dev/services/plots-storage"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// cheapSeal keeps backup tests fast; the derivation's cost does not change its logic.
var cheapSeal = seal.Params{Time: 1, MemoryKiB: 64, Threads: 1}

type world struct {
	kit   *testkit.Kit
	app   *fiber.App
	svc   *plotsstorage.Service
	clock *clock.Fixed
	deps  platform.Deps
}

func newWorld(t testing.TB) *world { return newWorldWith(t, nil) }

// newWorldWith runs prepare on the kit before the service starts (to store
// what a test needs in bulk, the way a world that ran a while holds it).
func newWorldWith(t testing.TB, prepare func(*testkit.Kit)) *world {
	t.Helper()
	kit := testkit.New(t)
	if prepare != nil {
		prepare(kit)
	}
	clk := clock.NewFixed(time.Date(2026, 11, 22, 9, 15, 3, 127e6, time.UTC))
	deps := kit.Deps(clk)
	svc, err := plotsstorage.New(kit.Ctx(), deps, plotsstorage.Options{Seal: cheapSeal})
	if err != nil {
		t.Fatal(err)
	}
	kit.Run(svc)
	return &world{kit: kit, app: kit.App(svc), svc: svc, clock: clk, deps: deps}
}

func (w *world) do(t testing.TB, method, path string, body any, headers map[string]string) testkit.Response {
	t.Helper()
	return testkit.Do(t, w.app, testkit.Request{Method: method, Path: path, Body: body, Headers: headers})
}

// citizen makes a registered agent.
func (w *world) citizen(name string) testkit.Agent {
	a := w.kit.NewAgent(name, nil)
	w.kit.Register(a)
	return a
}

// claim claims (x, y) for a and fails the test unless it worked.
func (w *world) claim(t testing.TB, a testkit.Agent, x, y int) string {
	t.Helper()
	r := w.do(t, http.MethodPost, "/api/world/plots/claim", map[string]any{"x": x, "y": y}, a.Headers())
	r.ExpectStatus(t, 201)
	return r.Body["plot"].(map[string]any)["plot_id"].(string)
}

func (w *world) write(t testing.TB, a testkit.Agent, plotID, path string, content []byte) testkit.Response {
	t.Helper()
	return w.do(t, http.MethodPost, "/api/world/storage/write",
		map[string]any{"plot_id": plotID, "path": path, "content": base64.StdEncoding.EncodeToString(content)}, a.Headers())
}

func (w *world) read(t testing.TB, headers map[string]string, plotID, path string) testkit.Response {
	t.Helper()
	return w.do(t, http.MethodPost, "/api/world/storage/read", map[string]any{"plot_id": plotID, "path": path}, headers)
}

// eventLog collects this world's events on world.plots.
type eventLog struct {
	mu  sync.Mutex
	got []events.Event
}

func (w *world) watchPlots(t testing.TB) *eventLog {
	log := &eventLog{}
	cons := events.NewConsumer(events.ConsumerOptions{Service: "probe", Group: fmt.Sprintf("probe-%d", time.Now().UnixNano()),
		Topics: []string{catalog.TopicPlots}, Brokers: w.kit.Brokers, Logger: w.kit.Logger,
		Handler: func(_ context.Context, e events.Event) error {
			log.mu.Lock()
			log.got = append(log.got, e)
			log.mu.Unlock()
			return nil
		}})
	go func() { _ = cons.Run(w.kit.Ctx()) }()
	return log
}

// waitFor returns the events of type typ once at least n have arrived.
func (l *eventLog) waitFor(t testing.TB, typ string, n int) []events.Event {
	t.Helper()
	var out []events.Event
	testkit.Eventually(t, 20*time.Second, fmt.Sprintf("%d %s events", n, typ), func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		out = out[:0]
		for _, e := range l.got {
			if e.Type == typ {
				out = append(out, e)
			}
		}
		return len(out) >= n
	})
	return out
}

func num(v any) int { f, _ := v.(float64); return int(f) }

//go:build !cluster

// The local runner only: it walks the services the runner hosts in its one
// process; the chart's Ingress is checked against the service table in
// hack/cluster and hack/k8s/chart.

package world_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/hack/services"
	"sharedworld.dev/hack/world"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/services/docs"
)

// Paths of the OpenAPI document that no entry of the service table serves:
// every host serves health itself and only the local runner the development
// clock.
var (
	hostPaths   = []string{"GET /healthz", "GET /readyz"}
	runnerPaths = []string{"POST /api/admin/clock"}
	// notYetPrefixes are documented prefixes no service serves yet (none
	// today: a future service's routes may be documented before it lands).
	notYetPrefixes []string
)

var param = regexp.MustCompile(`\{[^}]+\}|:[^/]+`)

// shape writes "METHOD /path/{id}" and Fiber's "METHOD /path/:id" alike.
func shape(method, path string) string { return method + " " + param.ReplaceAllString(path, "{}") }

// The service table agrees with the services and the OpenAPI document:
// every documented operation is served by the service whose prefixes own
// its path (so the Ingress sends it where it is served), every route a
// service serves is owned by that service, and each entry's body limit is
// the largest of its service's routes.
func TestServiceTableRoutesEveryDocumentedPath(t *testing.T) {
	w := start(t, world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: "routing-token-0123456789"})
	defer w.Stop(20 * time.Second)
	built := w.Services()
	if len(built) != len(services.Table) {
		t.Fatalf("the world hosts %d services, the table lists %d", len(built), len(services.Table))
	}
	served := map[string]string{} // operation shape → service
	for i, svc := range built {
		entry := services.Table[i]
		if svc.Name() != entry.Name() {
			t.Fatalf("table entry %d is %s, the service built from it says %s", i, entry.Name(), svc.Name())
		}
		limit := httpx.DefaultBodyLimit
		for _, n := range svc.BodyLimits() {
			limit = max(limit, n)
		}
		if entry.BodyLimit != limit {
			t.Errorf("%s: the table's body limit is %d, its largest route limit %d", entry.Name(), entry.BodyLimit, limit)
		}
		app := httpx.NewApp(httpx.Options{Service: svc.Name()})
		svc.Routes(app)
		for _, r := range app.GetRoutes(true) {
			if !slices.Contains([]string{"GET", "POST", "PUT", "PATCH", "DELETE"}, r.Method) {
				continue
			}
			served[shape(r.Method, r.Path)] = svc.Name()
			if owner, _ := services.Owner(r.Path); owner.Name() != svc.Name() {
				t.Errorf("%s serves %s %s, but the table sends that path to %s", svc.Name(), r.Method, r.Path, owner.Name())
			}
		}
	}

	spec, err := docs.LoadSpec()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for path, item := range spec.Doc.Paths.Map() {
		for method := range item.Operations() {
			op := method + " " + path
			got, isServed := served[shape(method, path)]
			switch {
			case slices.Contains(hostPaths, op) || slices.Contains(runnerPaths, op):
				if isServed {
					t.Errorf("%s is served by %s; the host serves it", op, got)
				}
			case slices.ContainsFunc(notYetPrefixes, func(p string) bool { return path == p || strings.HasPrefix(path, p+"/") }):
				if isServed {
					t.Errorf("%s is served by %s now: give it a table entry and drop it from notYetPrefixes", op, got)
				}
			default:
				owner, _ := services.Owner(path)
				if !isServed || got != owner.Name() {
					t.Errorf("%s: the table sends it to %s, but it is served by %q", op, owner.Name(), got)
				}
				checked++
			}
		}
	}
	if checked < 40 {
		t.Fatalf("only %d documented operations checked", checked)
	}
	t.Logf("%d documented operations reach the service that serves them", checked)
}

package docs_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/docs"
)

// newApp mounts the documents on a real app of the shared kit.
func newApp(t testing.TB, opts docs.Options) *fiber.App {
	t.Helper()
	app := httpx.NewApp(httpx.Options{Service: "docs-test", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	docs.Routes(app, opts)
	return app
}

var devWorld = docs.Options{WorldName: "Test World", DevProvider: true, AgentIDPrefix: "emb"}

// servedDocument fetches /openapi.json and loads it with kin-openapi, as a
// client would.
func servedDocument(t testing.TB) *openapi3.T {
	t.Helper()
	resp := testkit.Do(t, newApp(t, devWorld), testkit.Request{Method: "GET", Path: "/openapi.json"})
	resp.ExpectStatus(t, 200)
	doc, err := openapi3.NewLoader().LoadFromData(resp.Raw)
	if err != nil {
		t.Fatalf("the served document does not load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the served document does not validate: %v", err)
	}
	return doc
}

// kitStatuses maps every error code the shared kit produces to its status,
// from the kit itself.
func kitStatuses() map[string]int {
	out := map[string]int{}
	for k := problem.KindInternal; k <= problem.KindUnavailable; k++ {
		status, code := httpx.StatusOf(&problem.Error{Kind: k})
		out[code] = status
	}
	status, code := httpx.StatusOf(problem.Validation("", "").WithCode("DESCRIPTION_TOO_LONG"))
	out[code] = status
	return out
}

// operations lists every documented "METHOD path".
func operations(doc *openapi3.T) map[string]*openapi3.Operation {
	out := map[string]*openapi3.Operation{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			out[method+" "+path] = op
		}
	}
	return out
}

package docs_test

import (
	"encoding/json"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/docs"
)

// seedLinks is SEED §2.10, the bulletin's links.
var seedLinks = map[string]any{
	"register": "/api/world/register", "bulletin": "/api/world/bulletin", "events": "/api/world/events",
	"commons": "/api/world/commons", "garden_write": "/api/world/storage/write",
	"notifications": "/api/world/notifications", "inbox": "/api/world/inbox", "tickets": "/api/world/tickets",
	"directory": "/api/world/directory", "docs": "/docs", "safety": "/safety", "founding": "/founding",
	"agent_txt": "/agent.txt",
}

func discoveryOf(t *testing.T, opts docs.Options) map[string]any {
	t.Helper()
	resp := testkit.Do(t, newApp(t, opts), testkit.Request{Method: "GET", Path: "/.well-known/world.json"})
	resp.ExpectStatus(t, 200)
	if resp.Body["ok"] != true {
		t.Fatalf("world.json is not a success body: %s", resp.Raw)
	}
	return resp.Body
}

func TestDiscoveryDescribesTheWorld(t *testing.T) {
	w := discoveryOf(t, devWorld)
	if w["name"] != "Test World" || w["openapi"] != "/openapi.json" || w["docs"] != "/docs" {
		t.Errorf("name, openapi or docs wrong: %v %v %v", w["name"], w["openapi"], w["docs"])
	}
	links, _ := w["links"].(map[string]any)
	if len(links) != len(seedLinks) {
		t.Errorf("links has %d entries, the seed %d", len(links), len(seedLinks))
	}
	for name, path := range seedLinks {
		if links[name] != path {
			t.Errorf("links.%s = %v, the seed says %v", name, links[name], path)
		}
	}
	idp, _ := w["identity_provider"].(map[string]any)
	dev, _ := idp["development_provider"].(map[string]any)
	if idp["agent_id_prefix"] != "emb" || dev["enabled"] != true || dev["register"] != "/dev/idp/register" {
		t.Errorf("identity provider wrong: %v", idp)
	}
	api, _ := w["api"].(map[string]any)
	if api["world"] != "/api/world" || api["dev_idp"] != "/dev/idp" {
		t.Errorf("api base paths wrong: %v", api)
	}

	other := discoveryOf(t, docs.Options{WorldName: "Elsewhere", AgentIDPrefix: "xyz"})
	idp, _ = other["identity_provider"].(map[string]any)
	dev, _ = idp["development_provider"].(map[string]any)
	if other["name"] != "Elsewhere" || idp["agent_id_prefix"] != "xyz" || idp["agent_id_pattern"] != "^xyz_[0-9a-f]{24}$" || dev["enabled"] != false {
		t.Errorf("world.json does not follow the options: %v", other)
	}
	if _, listed := dev["register"]; listed {
		t.Error("world.json lists the development provider's paths while it is off")
	}
}

func TestDiscoveryLimitsAreTheDocuments(t *testing.T) {
	sp, err := docs.LoadSpec()
	if err != nil {
		t.Fatal(err)
	}
	limits, _ := discoveryOf(t, devWorld)["limits"].(map[string]any)
	if len(limits) != len(sp.Limits) || len(limits) < 30 {
		t.Fatalf("world.json has %d limits, the document %d", len(limits), len(sp.Limits))
	}
	for _, l := range sp.Limits {
		if got, _ := limits[l.Name].(float64); int64(got) != l.Value {
			t.Errorf("limits.%s = %v, the document says %d", l.Name, limits[l.Name], l.Value)
		}
	}
}

// world.json, the error bodies and the bulletin links are what the
// document's schemas say they are.
func TestBodiesConformToTheirSchemas(t *testing.T) {
	doc := servedDocument(t)
	check := func(schema string, raw []byte) {
		t.Helper()
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		if err := doc.Components.Schemas[schema].Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
			t.Errorf("%s does not conform: %v\n%s", schema, err, raw)
		}
	}
	app := newApp(t, devWorld)
	check("WorldDiscovery", testkit.Do(t, app, testkit.Request{Method: "GET", Path: "/.well-known/world.json"}).Raw)
	check("Error", testkit.Do(t, app, testkit.Request{Method: "GET", Path: "/no/such/page"}).Raw)
	links, _ := json.Marshal(seedLinks)
	check("Links", links)

	// The schemas are not vacuous: a wrong body fails.
	if err := doc.Components.Schemas["Error"].Value.VisitJSON(map[string]any{"ok": false, "error": "teapot", "message": "m", "hint": "h"},
		openapi3.EnableJSONSchema2020()); err == nil {
		t.Error("the Error schema accepts an unknown code")
	}
}

// world.json describes the signature the world verifies: the header with
// its optional nonce and the nonce's fifth signing line (as /agent.txt and
// the OpenAPI document do).
func TestDiscoveryDescribesTheSignatureWithItsNonce(t *testing.T) {
	idp, _ := discoveryOf(t, devWorld)["identity_provider"].(map[string]any)
	sig, _ := idp["request_signature"].(map[string]any)
	lines, _ := sig["signing_lines"].([]any)
	if sig["format"] != "t=<unix seconds>,n=<nonce>,sig=<base64 Ed25519 signature>" ||
		sig["signing_string"] != `METHOD\nPATH?QUERY\n<t>\n<hex sha256 of body>\n<nonce>` || len(lines) != 5 || sig["nonce"] == nil {
		t.Errorf("world.json's request_signature is not the signature the world verifies: %v", sig)
	}
}

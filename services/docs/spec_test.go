package docs_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/ratelimit"
	"sharedworld.dev/services/docs"
)

func TestDocumentValidates(t *testing.T) {
	src, err := openapi3.NewLoader().LoadFromData(docs.SourceYAML())
	if err != nil {
		t.Fatalf("the YAML source does not load: %v", err)
	}
	if err := src.Validate(context.Background()); err != nil {
		t.Fatalf("the YAML source does not validate: %v", err)
	}
	doc := servedDocument(t)
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("served openapi version %q, want 3.1.0", doc.OpenAPI)
	}
	if doc.Paths.Len() != src.Paths.Len() || doc.Paths.Len() == 0 {
		t.Fatalf("served document has %d paths, the source %d", doc.Paths.Len(), src.Paths.Len())
	}
}

func TestEveryContractRouteIsDocumented(t *testing.T) {
	ops := operations(servedDocument(t))
	want := map[string]bool{}
	for _, r := range contractRoutes {
		want[r.route] = true
		if ops[r.route] == nil {
			t.Errorf("%s %s is not in the document", r.section, r.route)
		}
	}
	for route := range ops {
		if !want[route] {
			t.Errorf("the document describes %s, which the contract does not name", route)
		}
	}
}

func TestErrorCodesAreTheKits(t *testing.T) {
	doc := servedDocument(t)
	codeSchema := doc.Components.Schemas["ErrorCode"].Value
	statuses, _ := codeSchema.Extensions["x-statuses"].(map[string]any)
	kit := kitStatuses()
	var enum []string
	for _, v := range codeSchema.Enum {
		enum = append(enum, v.(string))
	}
	for code, status := range kit {
		if !slices.Contains(enum, code) {
			t.Errorf("error code %s (HTTP %d) is missing from the ErrorCode enum", code, status)
		}
		if got, _ := statuses[code].(float64); int(got) != status {
			t.Errorf("x-statuses says %s is %v, the kit answers %d", code, statuses[code], status)
		}
	}
	if len(enum) != len(kit) {
		t.Errorf("ErrorCode enum has %d codes, the kit %d: %v", len(enum), len(kit), enum)
	}
	errSchema := doc.Components.Schemas["Error"].Value
	for _, f := range []string{"ok", "error", "message", "hint"} {
		if errSchema.Properties[f] == nil || !slices.Contains(errSchema.Required, f) {
			t.Errorf("the Error schema lacks required field %q", f)
		}
	}
}

// Every error response names its codes, and each code's status is the
// response's status; a 429 carries Retry-After.
func TestErrorResponsesMatchTheirStatus(t *testing.T) {
	kit := kitStatuses()
	checked := 0
	for route, op := range operations(servedDocument(t)) {
		for status, resp := range op.Responses.Map() {
			mt := resp.Value.Content.Get("application/json")
			if status == "default" || status[0] < '4' || mt == nil {
				continue
			}
			codes := codesOf(mt.Schema)
			if len(codes) == 0 {
				t.Errorf("%s: response %s names no error codes", route, status)
			}
			for _, c := range codes {
				if got := kit[c]; got == 0 || status != strconv.Itoa(got) {
					t.Errorf("%s: response %s lists %s, which the kit answers with %d", route, status, c, got)
				}
			}
			if status == "429" && resp.Value.Headers["Retry-After"] == nil {
				t.Errorf("%s: 429 without a Retry-After header", route)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("only %d error responses checked; the walk is broken", checked)
	}
}

func codesOf(ref *openapi3.SchemaRef) []string {
	var out []string
	for _, part := range ref.Value.AllOf {
		if e := part.Value.Properties["error"]; e != nil && e.Ref == "" {
			for _, v := range e.Value.Enum {
				out = append(out, v.(string))
			}
		}
	}
	return out
}

// x-auth says who may call; security must say the same, and the error
// responses must include what that auth can fail with.
func TestAuthMatchesSecurity(t *testing.T) {
	for route, op := range operations(servedDocument(t)) {
		auth, _ := op.Extensions["x-auth"].(string)
		if op.Security == nil {
			t.Errorf("%s: no security (write [] for public routes)", route)
			continue
		}
		var anonymous, certificate, ambassador bool
		for _, req := range *op.Security {
			_, cert := req["agentCertificate"]
			_, amb := req["ambassador"]
			anonymous = anonymous || len(req) == 0
			certificate = certificate || cert
			ambassador = ambassador || amb
		}
		want := map[string][3]bool{ // anonymous, certificate, ambassador
			"none": {true, false, false}, "optional-certificate": {true, true, false},
			"certificate": {false, true, false}, "citizen": {false, true, false},
			"ambassador": {false, false, true}, "certificate-or-ambassador": {false, true, true},
		}
		w, ok := want[auth]
		if !ok {
			t.Errorf("%s: x-auth %q is not a known kind", route, auth)
			continue
		}
		if auth == "none" && len(*op.Security) != 0 {
			t.Errorf("%s: public, but security lists %v", route, *op.Security)
		}
		if auth != "none" && (w != [3]bool{anonymous, certificate, ambassador}) {
			t.Errorf("%s: x-auth %s but security %v", route, auth, *op.Security)
		}
		if (certificate || ambassador) && op.Responses.Value("401") == nil {
			t.Errorf("%s: needs credentials but documents no 401", route)
		}
		if auth == "citizen" {
			r := op.Responses.Value("403")
			if r == nil || !slices.Contains(codesOf(r.Value.Content.Get("application/json").Schema), "not_registered") {
				t.Errorf("%s: citizens only, but no 403 not_registered", route)
			}
		}
	}
}

func TestSecuritySchemesDescribeTheCredentials(t *testing.T) {
	doc := servedDocument(t)
	headers := map[string]string{"agentId": "X-Agent-Id", "agentCertificate": "X-Agent-Certificate",
		"embassyCertificate": "X-Embassy-Certificate", "embassyArtifact": "X-Embassy-Artifact", "agentSignature": "X-Agent-Signature"}
	for name, header := range headers {
		s := doc.Components.SecuritySchemes[name]
		if s == nil || s.Value.Type != "apiKey" || s.Value.In != "header" || s.Value.Name != header {
			t.Errorf("security scheme %s should be the header %s", name, header)
		}
	}
	if a := doc.Components.SecuritySchemes["ambassador"]; a == nil || a.Value.Type != "http" || a.Value.Scheme != "bearer" {
		t.Error("the ambassador scheme should be HTTP bearer")
	}
	const signing = `METHOD\nPATH?QUERY\n<t>\n<hex sha256 of body>`
	if d := doc.Components.SecuritySchemes["agentSignature"].Value.Description; !strings.Contains(d, signing) || !strings.Contains(d, "no `?` when there is no query") {
		t.Errorf("the signature scheme does not state the signing string: %s", d)
	}
	const nonce = `METHOD\nPATH?QUERY\n<t>\n<hex sha256 of body>\n<nonce>`
	if !strings.Contains(doc.Info.Description, nonce) || !strings.Contains(doc.Info.Description, "n=<nonce>") {
		t.Errorf("the document does not state the signing string with a nonce")
	}
	if d := doc.Components.SecuritySchemes["agentSignature"].Value.Description; !strings.Contains(d, "n=<nonce>") || !strings.Contains(d, "fifth line `\\n<nonce>`") {
		t.Errorf("the signature scheme does not describe n=: %s", d)
	}
	if got := string(auth.SigningString("GET", "/x", 1, nil, "abc")); got != "GET\n/x\n1\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\nabc" {
		t.Errorf("the kit signs the nonce as %q; the document must describe that", got)
	}
	// The string the document states is the one the kit verifies.
	got := string(auth.SigningString("GET", "/api/world/events?limit=5", 1700000000, nil, ""))
	want := "GET\n/api/world/events?limit=5\n1700000000\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	if got != want || !strings.Contains(doc.Info.Description, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") {
		t.Errorf("the kit signs %q; the document must describe that", got)
	}
}

func TestLimitsAgreeWithTheKit(t *testing.T) {
	sp, err := docs.LoadSpec()
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]int64{}
	for _, l := range sp.Limits {
		values[l.Name] = l.Value
		if l.Error != "" {
			if _, ok := kitStatuses()[l.Error]; !ok {
				t.Errorf("limit %s names unknown error code %s", l.Name, l.Error)
			}
		}
	}
	kit := map[string]int64{
		"request_body_bytes":       httpx.DefaultBodyLimit,
		"page_size_default":        httpx.DefaultLimit,
		"page_size_max":            httpx.MaxLimit,
		"signature_window_seconds": int64(auth.SignatureWindow.Seconds()),
		"tickets_per_day":          5,
		"ticket_description_chars": 3000,
		"election_population":      10,
		// plots-storage's domain (GardenMaxFiles, GardenQuotaBytes,
		// ShareMaxFiles, ShareQuotaBytes): its tests hold it to these.
		"garden_files":       100_000,
		"garden_bytes":       2 << 30,
		"garden_share_files": 100,
		"garden_share_bytes": 5 << 20,
	}
	for _, r := range ratelimit.Defaults() {
		kit[r.DocName()] = int64(r.Limit)
	}
	for name, want := range kit {
		if values[name] != want {
			t.Errorf("x-limits %s = %d, want %d", name, values[name], want)
		}
	}
}

package cluster

import (
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"sharedworld.dev/hack/services"
)

var root, _ = filepath.Abs("../..")

func renderLocal(t *testing.T, files []string, overrides map[string]any) (*Manifests, error) {
	t.Helper()
	base := map[string]any{
		"mongodb": map[string]any{"uri": "mongodb://127.0.0.1:27017/"},
		"kafka":   map[string]any{"brokers": "127.0.0.1:9092"},
		"secrets": map[string]any{"ambassadorToken": "render-token-0123456789", "ballotKey": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="},
	}
	for k, v := range overrides {
		base[k] = v
	}
	return Render(RenderOptions{Chart: filepath.Join(root, "charts", "shared-world"), Release: Release, Namespace: Namespace, Values: files, Overrides: base})
}

// The chart's defaults configure no identity provider, with which every
// binary would exit 2: the chart refuses to render and names the values.
func TestTheChartRefusesAWorldWithoutAnIdentityProvider(t *testing.T) {
	_, err := renderLocal(t, nil, map[string]any{"mongodb": map[string]any{"uri": "mongodb://db/", "existingSecret": ""}})
	if err == nil {
		t.Fatal("rendered a world no agent could register in")
	}
	for _, value := range []string{"identityProvider.keysUrl", "secrets.providerKeys", "identityProvider.remoteVerify", "identityProvider.development"} {
		if !strings.Contains(err.Error(), value) {
			t.Errorf("the refusal does not name %s: %v", value, err)
		}
	}
	for name, idp := range map[string]map[string]any{
		"keys URL":    {"identityProvider": map[string]any{"keysUrl": "https://idp.example/keys"}},
		"static keys": {"secrets": map[string]any{"providerKeys": "k1=AAAA", "ambassadorToken": "render-token-0123456789", "ballotKey": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}},
		"development": {"identityProvider": map[string]any{"development": true}},
	} {
		idp["mongodb"] = map[string]any{"uri": "mongodb://db/", "existingSecret": ""}
		if _, err := renderLocal(t, nil, idp); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The local values give one Deployment per service of the service table,
// each running its own binary, calling identity through its Service, and
// an Ingress that routes exactly the service table's prefixes.
func TestTheLocalValuesRenderEveryServiceAndTheServiceTablesRoutes(t *testing.T) {
	m, err := renderLocal(t, []string{filepath.Join(root, "deploy", "values-local.yaml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var binaries, want []string
	for _, d := range m.Deployments {
		c, err := m.container(d.Spec.Template.Spec)
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		if !slices.Contains(binaries, c.Binary) { // the bulletin runs as two Deployments
			binaries = append(binaries, c.Binary)
		}
		if c.Readiness == nil || c.Readiness.HTTPGet == nil {
			t.Errorf("%s has no HTTP readiness probe to wait for", d.Name)
		}
		env := strings.Join(c.Env, "\n")
		// the last setting of a variable is the one a container gets
		at := strings.LastIndex(env, "WORLD_DRAIN_DELAY=")
		if at < 0 {
			t.Fatalf("%s has no WORLD_DRAIN_DELAY", d.Name)
		}
		drain := env[at:]
		drain = drain[:strings.IndexByte(drain+"\n", '\n')]
		// the bulletin's aggregator serves no route: nothing to hand over
		if want := map[bool]string{true: "WORLD_DRAIN_DELAY=0s", false: "WORLD_DRAIN_DELAY=5s"}[strings.HasSuffix(d.Name, "-bulletin-aggregator")]; drain != want {
			t.Errorf("%s drains with %s, want %s", d.Name, drain, want)
		}
		if !strings.Contains(env, "WORLD_IDP_KEYS_URL=http://world-shared-world-identity:8080/dev/idp/keys") {
			t.Errorf("%s does not load the development provider's keys from identity's Service:\n%s", d.Name, env)
		}
	}
	for _, e := range services.Table {
		want = append(want, e.Name())
	}
	sort.Strings(binaries)
	sort.Strings(want)
	if strings.Join(binaries, ",") != strings.Join(want, ",") {
		t.Fatalf("Deployments run %v, the service table has %v", binaries, want)
	}
	c := &Cluster{Manifests: m}
	routes, err := c.ingressRoutes(m.Ingresses)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range services.Table {
		for _, prefix := range e.Prefixes {
			ep := routes.match(prefix + "/x")
			if ep == nil || !strings.Contains(ep.sel.String()+",", "/component="+e.Name()+",") {
				t.Errorf("%s/x routes to %v, want %s", prefix, ep.sel, e.Name())
			}
		}
	}
}

// Paths match a Prefix rule element by element (a trailing slash aside),
// the longest rule first, an Exact rule before a Prefix one as long.
func TestIngressPrefixesMatchWholePathElements(t *testing.T) {
	a, b, root := &endpoints{port: "a"}, &endpoints{port: "b"}, &endpoints{port: "root"}
	slash, exact, prefix := &endpoints{port: "slash"}, &endpoints{port: "exact"}, &endpoints{port: "prefix"}
	routes := ingressRoutes{{prefix: "/api/world/plots", ep: a}, {prefix: "/api/world/plots/x", ep: b}, {prefix: "/", ep: root},
		{prefix: "/docs/", ep: slash}, {prefix: "/same", ep: prefix}, {prefix: "/same", exact: true, ep: exact}}
	sortRoutes(routes)
	for path, want := range map[string]*endpoints{
		"/api/world/plots": a, "/api/world/plots/claim": a, "/api/world/plotsx": root,
		"/api/world/plots/x": b, "/api/world/plots/x/y": b, "/": root, "/docsx": root,
		"/docs": slash, "/docs/a": slash, "/same": exact, "/same/a": prefix,
	} {
		if got := routes.match(path); got != want {
			t.Errorf("%s routes to %s, want %s", path, got.port, want.port)
		}
	}
}

// In-cluster Service addresses in the environment become the local
// addresses standing for them; anything else is left as it is.
func TestServiceAddressesAreRewritten(t *testing.T) {
	hosts := serviceHosts{}
	hosts.add(&Manifests{Namespace: "default"}, "world-shared-world-identity", "8080", "127.0.0.1:4000")
	for in, want := range map[string]string{
		"http://world-shared-world-identity:8080/dev/idp/keys":                "http://127.0.0.1:4000/dev/idp/keys",
		"http://world-shared-world-identity.default.svc.cluster.local:8080/x": "http://127.0.0.1:4000/x",
		"world-shared-world-identity:8080,kafka:9092":                         "127.0.0.1:4000,kafka:9092",
		"http://world-shared-world-identity:9090/metrics":                     "http://world-shared-world-identity:9090/metrics",
		"mongodb://127.0.0.1:27017/":                                          "mongodb://127.0.0.1:27017/",
	} {
		if got := hosts.rewrite(in); got != want {
			t.Errorf("rewrite(%q) = %q, want %q", in, got, want)
		}
	}
}

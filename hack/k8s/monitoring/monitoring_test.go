package monitoring_test

import (
	"bufio"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/hack/k8s/monitoring"
)

// kubeStateMetrics are the series of kube-state-metrics the alerts use for
// what only the cluster knows (CronJob runs, restarts); everything else
// must come from the world's own code.
var kubeStateMetrics = map[string]bool{
	"kube_cronjob_status_last_successful_time": true,
	"kube_job_status_failed":                   true,
	"kube_pod_container_status_restarts_total": true,
}

func root(t testing.TB) string {
	t.Helper()
	r, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Every metric a rule or a dashboard panel queries exists: on /metrics of
// a running world, or declared by the code (a labelled series appears only
// once something happened, e.g. a publish error), or recorded by a rule.
func TestEveryQueriedMetricExists(t *testing.T) {
	r := root(t)
	scraped := scrapeRunningWorld(t, r)
	declared, err := monitoring.Declared(filepath.Join(r, "pkg"), filepath.Join(r, "services"), filepath.Join(r, "operator"))
	if err != nil {
		t.Fatal(err)
	}
	for name := range scraped {
		if base := trimHistogram(name); strings.HasPrefix(name, "sharedworld_") && declared[name] == "" && declared[base] == "" {
			t.Errorf("/metrics shows %s that no code declares: the scan of declarations is broken", name)
		}
	}
	rules, err := monitoring.Rules(filepath.Join(r, "deploy/prometheus/rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[string]bool{}
	var queries []monitoring.Query
	for _, rule := range rules {
		if rule.Record != "" {
			recorded[rule.Record] = true
		}
		queries = append(queries, monitoring.Query{Where: "rule " + rule.Record + rule.Alert, Expr: rule.Expr})
	}
	dashboards, _ := filepath.Glob(filepath.Join(r, "deploy/dashboards/*.json"))
	if len(dashboards) < 4 {
		t.Fatalf("dashboards: %v", dashboards)
	}
	for _, d := range dashboards {
		qs, err := monitoring.DashboardQueries(d)
		if err != nil {
			t.Fatal(err)
		}
		queries = append(queries, qs...)
	}
	fromCode := map[string]bool{}
	for _, q := range queries {
		names, err := monitoring.Metrics(q.Expr)
		if err != nil {
			t.Errorf("%s: %v\n%s", q.Where, err, q.Expr)
			continue
		}
		for _, n := range names {
			switch {
			case scraped[n], recorded[n], kubeStateMetrics[n]:
			case declared[n] != "" || declared[trimHistogram(n)] != "":
				fromCode[n] = true
			default:
				t.Errorf("%s queries %s: not on /metrics of a running world, not declared in the code", q.Where, n)
			}
		}
	}
	t.Logf("%d queries; %d metric names on /metrics; declared in code but not yet on a fresh world's /metrics: %v",
		len(queries), len(scraped), keys(fromCode))
}

func trimHistogram(name string) string {
	for _, s := range []string{"_bucket", "_sum", "_count"} {
		name = strings.TrimSuffix(name, s)
	}
	return name
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// scrapeRunningWorld starts the local runner (every service in one
// process, embedded backend) on a free port, sends it some traffic and
// returns the metric names of its /metrics.
func scrapeRunningWorld(t *testing.T, root string) map[string]bool {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "world")
	build := exec.Command("go", "build", "-o", bin, "./hack/cmd/world")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the runner: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "WORLD_ADDR="+addr, "WORLD_DATA_DIR="+t.TempDir(), "WORLD_AMBASSADOR_TOKEN=metrics-test")
	logs, err := os.Create(filepath.Join(t.TempDir(), "world.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	base := "http://" + addr
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			raw, _ := os.ReadFile(logs.Name())
			t.Fatalf("the runner did not become ready: %v\n%s", err, raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, p := range []string{"/api/world/bulletin", "/api/world/events", "/docs", "/api/world/tickets", "/api/world/plots", "/api/world/governance/proposals", "/nowhere"} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	names := map[string]bool{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name := line[:strings.IndexAny(line, "{ ")]
		names[name] = true
	}
	if !names["sharedworld_http_requests_total"] {
		t.Fatalf("no request metrics on /metrics: %v", keys(names))
	}
	return names
}

// Every alert names its severity, says what happened, and links a runbook
// page of deploy/runbooks that exists and has the three sections.
func TestEveryAlertHasARunbook(t *testing.T) {
	r := root(t)
	rules, err := monitoring.Rules(filepath.Join(r, "deploy/prometheus/rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	alerts := 0
	for _, rule := range rules {
		if rule.Alert == "" {
			continue
		}
		alerts++
		url := rule.Annotations["runbook_url"]
		want := "/deploy/runbooks/" + rule.Alert + ".md"
		if !strings.HasSuffix(url, want) {
			t.Errorf("%s: runbook_url %q, want …%s", rule.Alert, url, want)
			continue
		}
		raw, err := os.ReadFile(filepath.Join(r, "deploy/runbooks", rule.Alert+".md"))
		if err != nil {
			t.Errorf("%s: %v", rule.Alert, err)
			continue
		}
		for _, section := range []string{"## What it means", "## How to look", "## How to fix"} {
			if !strings.Contains(string(raw), section) {
				t.Errorf("%s runbook lacks %q", rule.Alert, section)
			}
		}
		if rule.Labels["severity"] == "" || rule.Annotations["summary"] == "" {
			t.Errorf("%s: severity %q summary %q", rule.Alert, rule.Labels["severity"], rule.Annotations["summary"])
		}
	}
	if alerts != 9 {
		t.Errorf("%d alerts, want the 8 the issue lists and SharedWorldWorldNotReady", alerts)
	}
}

// The chart carries copies of deploy/'s rules and dashboards (a chart
// cannot read outside its folder): they must be the same bytes.
func TestChartCopiesAreCurrent(t *testing.T) {
	r := root(t)
	pairs := map[string]string{"deploy/prometheus/rules.yaml": "charts/shared-world/files/monitoring/rules.yaml"}
	dashboards, _ := filepath.Glob(filepath.Join(r, "deploy/dashboards/*.json"))
	for _, d := range dashboards {
		pairs["deploy/dashboards/"+filepath.Base(d)] = "charts/shared-world/files/monitoring/dashboards/" + filepath.Base(d)
	}
	copies, _ := filepath.Glob(filepath.Join(r, "charts/shared-world/files/monitoring/dashboards/*.json"))
	if len(copies) != len(dashboards) {
		t.Errorf("%d dashboard copies for %d dashboards: run `make chart-files`", len(copies), len(dashboards))
	}
	for src, dst := range pairs {
		a, err1 := os.ReadFile(filepath.Join(r, src))
		b, err2 := os.ReadFile(filepath.Join(r, dst))
		if err1 != nil || err2 != nil || string(a) != string(b) {
			t.Errorf("%s and %s differ (%v %v): run `make chart-files`", src, dst, err1, err2)
		}
	}
}

func alerts(t *testing.T) []string {
	t.Helper()
	rules, err := monitoring.Rules(filepath.Join(root(t), "deploy/prometheus/rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rules {
		if r.Alert != "" {
			out = append(out, r.Alert)
		}
	}
	return out
}

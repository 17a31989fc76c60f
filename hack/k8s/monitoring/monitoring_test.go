package monitoring_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"

	"sharedworld.dev/hack/k8s/monitoring"
)

// clusterSeries are the series of kube-state-metrics the alerts and panels
// use for what only the cluster knows (CronJob runs, Job outcomes,
// restarts), each with its labels and the values kube-state-metrics
// documents for them; everything else must come from the world's own
// code. A nil list is a label whose values the cluster makes up (namespace,
// pod, uid); object names are those the chart renders for the release
// "world". The containers are filled in from the service table.
var clusterSeries = map[string]map[string][]string{
	"kube_cronjob_created":                     {"namespace": nil, "cronjob": cronJobs},
	"kube_cronjob_status_last_successful_time": {"namespace": nil, "cronjob": cronJobs},
	"kube_job_status_condition": {"namespace": nil, "job_name": jobs, "reason": nil,
		"condition": {"Complete", "Failed", "Suspended", "FailureTarget", "SuccessCriteriaMet"},
		"status":    {"true", "false", "unknown"}},
	"kube_job_owner": {"namespace": nil, "job_name": jobs,
		"owner_kind": {"CronJob", "<none>"}, "owner_name": append([]string{"<none>"}, cronJobs...),
		"owner_is_controller": {"true", "false", "<none>"}},
	"kube_pod_container_status_restarts_total": {"namespace": nil, "pod": nil, "uid": nil, "container": {}},
}

var (
	cronJobs = []string{"world-shared-world-governance-check"}
	// A CronJob's Job is named after it and its scheduled minute.
	jobs = []string{"world-shared-world-governance-check-29000019", "world-shared-world-bulletin-rebuild-1"}
)

// targetLabels are what Prometheus adds to every series it scrapes from a
// service's admin port (ServiceMonitor); a series' own label of the same
// name wins (honorLabels).
var targetLabels = map[string]bool{"namespace": true, "pod": true, "container": true, "service": true, "endpoint": true, "job": true, "instance": true}

// declaredValues are label values the code can export that a freshly
// exercised world has not shown yet: a healthy world answers no 5xx, but
// the request counter labels each answer with its status code.
func declaredValues() map[string]map[string][]string {
	var codes []string
	for c := 100; c < 600; c++ {
		if http.StatusText(c) != "" {
			codes = append(codes, strconv.Itoa(c))
		}
	}
	return map[string]map[string][]string{"sharedworld_http_requests_total": {"code": codes}}
}

// entry is one service of the service table (`go run ./hack/cmd/services`).
type entry struct {
	Name string   `json:"name"`
	Jobs []string `json:"jobs"`
}

func serviceTable(t *testing.T) []entry {
	t.Helper()
	cmd := exec.Command("go", "run", "./hack/cmd/services")
	cmd.Dir = root(t)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run ./hack/cmd/services: %v", err)
	}
	var table []entry
	if err := json.Unmarshal(out, &table); err != nil || len(table) == 0 {
		t.Fatalf("service table: %v\n%s", err, out)
	}
	return table
}

// containers are the names of the chart's containers: one per service
// (its Deployment), one per job of a service (its Job or CronJob), and the
// operator's.
func containers(t *testing.T) (services, all []string) {
	for _, e := range serviceTable(t) {
		services = append(services, e.Name)
		all = append(all, e.Name)
		all = append(all, e.Jobs...)
	}
	services = append(services, "operator")
	return services, append(all, "operator")
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
			case scraped[n] != nil, recorded[n], clusterSeries[n] != nil:
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

// queries are every rule expression and every dashboard query.
func queries(t *testing.T) (qs []monitoring.Query, recorded map[string]string) {
	t.Helper()
	r := root(t)
	rules, err := monitoring.Rules(filepath.Join(r, "deploy/prometheus/rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	recorded = map[string]string{}
	for _, rule := range rules {
		if rule.Record != "" {
			recorded[rule.Record] = rule.Expr
		}
		qs = append(qs, monitoring.Query{Where: "rule " + rule.Record + rule.Alert, Expr: rule.Expr})
	}
	dashboards, _ := filepath.Glob(filepath.Join(r, "deploy/dashboards/*.json"))
	if len(dashboards) < 4 {
		t.Fatalf("dashboards: %v", dashboards)
	}
	for _, d := range dashboards {
		dq, err := monitoring.DashboardQueries(d)
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, dq...)
	}
	return qs, recorded
}

// Every label matcher of every rule and panel query can match something:
// the label is one the metric carries, an equality or a regular expression
// matches at least one value it is exported with, and a negative matcher
// excludes at least one. Values come from /metrics of a running world after
// exercising it, from value sets the code declares, or, for the cluster's
// series, from what kube-state-metrics documents. A matcher that matches
// nothing is an alert that never fires or a panel that is always empty.
func TestEveryLabelMatcherMatchesExportedValues(t *testing.T) {
	scraped := scrapeRunningWorld(t, root(t))
	declared := declaredValues()
	_, all := containers(t)
	cluster := map[string]map[string][]string{}
	for m, ls := range clusterSeries {
		cluster[m] = map[string][]string{}
		for l, vs := range ls {
			cluster[m][l] = vs
		}
	}
	cluster["kube_pod_container_status_restarts_total"]["container"] = all
	qs, recorded := queries(t)

	// values returns what label l of metric m can be (anyValue: whatever
	// the cluster names), or why it cannot be known.
	var values func(m, l string, depth int) (vs []string, anyValue bool, err error)
	values = func(m, l string, depth int) ([]string, bool, error) {
		if expr, ok := recorded[m]; ok && depth < 5 {
			// a recorded series keeps the labels of what it reads
			names, err := monitoring.Metrics(expr)
			if err != nil {
				return nil, false, err
			}
			var out []string
			for _, n := range names {
				vs, anyValue, err := values(n, l, depth+1)
				if anyValue || err != nil {
					return nil, anyValue, err
				}
				out = append(out, vs...)
			}
			return out, false, nil
		}
		if ls, ok := cluster[m]; ok {
			vs, ok := ls[l]
			if !ok {
				return nil, false, fmt.Errorf("kube-state-metrics exports no label %q on %s (it has %v)", l, m, keys(ls))
			}
			return vs, vs == nil, nil
		}
		series := scraped[m]
		if series == nil {
			series = scraped[m+"_bucket"]
		}
		vs := append(keys(series[l]), declared[m][l]...)
		switch {
		case len(vs) > 0:
			return vs, false, nil
		case targetLabels[l]:
			return nil, true, nil
		case series == nil && declared[m] == nil:
			return nil, false, fmt.Errorf("%s is not on /metrics of the exercised world and declares no values: exercise it or declare its values", m)
		default:
			return nil, false, fmt.Errorf("%s is exported without a label %q (it has %v)", m, l, keys(series))
		}
	}

	checked := 0
	for _, q := range qs {
		sels, err := monitoring.Selectors(q.Expr)
		if err != nil {
			t.Errorf("%s: %v", q.Where, err)
			continue
		}
		for _, sel := range sels {
			for _, m := range sel.Matchers {
				if monitoring.Variable(m) {
					continue
				}
				vs, anyValue, err := values(sel.Metric, m.Name, 0)
				if err != nil {
					t.Errorf("%s: %s: %v", q.Where, m, err)
					continue
				}
				checked++
				if anyValue {
					continue
				}
				positive := m.Type == labels.MatchEqual || m.Type == labels.MatchRegexp
				hit := false
				for _, v := range vs {
					if m.Matches(v) == positive {
						hit = true
						break
					}
				}
				switch {
				case !hit && positive:
					t.Errorf("%s: %s{%s} matches none of the values it is exported with: %v", q.Where, sel.Metric, m, vs)
				case !hit && m.Value != "":
					t.Errorf("%s: %s{%s} excludes none of the values it is exported with: %v", q.Where, sel.Metric, m, vs)
				}
			}
		}
	}
	if checked < 5 {
		t.Fatalf("only %d label matchers checked: the parsing of queries is broken", checked)
	}
	t.Logf("%d label matchers checked", checked)
}

// SharedWorldPodRestarting watches every container the chart runs for a
// service of the service table, and the operator.
func TestPodRestartingCoversEveryService(t *testing.T) {
	services, _ := containers(t)
	rules, err := monitoring.Rules(filepath.Join(root(t), "deploy/prometheus/rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var matchers []*labels.Matcher
	for _, r := range rules {
		if r.Alert != "SharedWorldPodRestarting" {
			continue
		}
		sels, err := monitoring.Selectors(r.Expr)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sels {
			if s.Metric == "kube_pod_container_status_restarts_total" {
				matchers = append(matchers, s.Matchers...)
			}
		}
	}
	if len(matchers) == 0 {
		t.Fatal("SharedWorldPodRestarting reads no kube_pod_container_status_restarts_total")
	}
	for _, c := range services {
		for _, m := range matchers {
			if m.Name == "container" && !m.Matches(c) {
				t.Errorf("SharedWorldPodRestarting does not watch container %q: %s", c, m)
			}
		}
	}
	for _, m := range matchers {
		if m.Name != "container" && m.Name != "namespace" {
			t.Errorf("SharedWorldPodRestarting selects by %s: containers are named after services, select by container", m)
		}
	}
}

func trimHistogram(name string) string {
	for _, s := range []string{"_bucket", "_sum", "_count"} {
		name = strings.TrimSuffix(name, s)
	}
	return name
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// exported is what a running world's /metrics shows: metric name → label
// → the values seen.
type exported map[string]map[string]map[string]bool

// world is the local runner the tests of this package scrape, started once
// (building and starting it is the slow part) and stopped by TestMain.
var world struct {
	once sync.Once
	cmd  *exec.Cmd
	dir  string
	got  exported
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if world.cmd != nil {
		_ = world.cmd.Process.Kill()
		_ = world.cmd.Wait()
	}
	if world.dir != "" {
		_ = os.RemoveAll(world.dir)
	}
	os.Exit(code)
}

// scrapeRunningWorld starts the local runner (every service in one
// process, embedded backend) on a free port, sends it some traffic, runs
// the governance check, and returns the series of its /metrics.
func scrapeRunningWorld(t *testing.T, root string) exported {
	t.Helper()
	world.once.Do(func() { world.got, world.err = runWorld(root) })
	if world.err != nil {
		t.Fatal(world.err)
	}
	return world.got
}

const ambassadorToken = "metrics-test"

func runWorld(root string) (exported, error) {
	dir, err := os.MkdirTemp("", "monitoring-world-")
	if err != nil {
		return nil, err
	}
	world.dir = dir
	bin := filepath.Join(dir, "world")
	build := exec.Command("go", "build", "-o", bin, "./hack/cmd/world")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build the runner: %w\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "WORLD_ADDR="+addr, "WORLD_DATA_DIR="+filepath.Join(dir, "data"), "WORLD_AMBASSADOR_TOKEN="+ambassadorToken)
	logs, err := os.Create(filepath.Join(dir, "world.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	world.cmd = cmd
	failed := func(format string, args ...any) (exported, error) {
		raw, _ := os.ReadFile(logs.Name())
		return nil, fmt.Errorf(format+"\n%s", append(args, raw)...)
	}
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
			return failed("the runner did not become ready: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, p := range []string{"/api/world/bulletin", "/api/world/events", "/docs", "/api/world/tickets", "/api/world/plots", "/api/world/governance/proposals", "/nowhere"} {
		resp, err := http.Get(base + p)
		if err != nil {
			return failed("GET %s: %v", p, err)
		}
		resp.Body.Close()
	}
	// The governance check (what the hourly schedule and the CronJob run)
	// sets the check's timestamps and counts proposals by status; the
	// count is taken after the answer, so wait for it.
	req, _ := http.NewRequest(http.MethodPost, base+"/api/admin/governance/check", nil)
	req.Header.Set("Authorization", "Bearer "+ambassadorToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return failed("governance check: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return failed("governance check: %s", resp.Status)
	}
	for {
		got, err := scrape(base + "/metrics")
		if err != nil {
			return failed("%v", err)
		}
		if len(got["sharedworld_http_requests_total"]) == 0 {
			return failed("no request metrics on /metrics: %v", keys(got))
		}
		if len(got["sharedworld_governance_proposals"]["status"]) > 0 {
			return got, nil
		}
		if time.Now().After(deadline) {
			return failed("no proposals by status on /metrics after a governance check: %v", keys(got))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// scrape reads the series of a /metrics page in the text format.
func scrape(url string) (exported, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out := exported{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ls, err := parser.NewParser(parser.Options{}).ParseMetric(seriesOf(line))
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", url, line, err)
		}
		name := ls.Get(model.MetricNameLabel)
		if out[name] == nil {
			out[name] = map[string]map[string]bool{}
		}
		ls.Range(func(l labels.Label) {
			if l.Name == model.MetricNameLabel {
				return
			}
			if out[name][l.Name] == nil {
				out[name][l.Name] = map[string]bool{}
			}
			out[name][l.Name][l.Value] = true
		})
	}
	return out, sc.Err()
}

// seriesOf cuts the value (and timestamp) off a sample line: after the
// closing brace of the labels, which may quote braces and spaces.
func seriesOf(line string) string {
	open := strings.IndexAny(line, "{ ")
	if open < 0 || line[open] == ' ' {
		return line[:max(open, 0)]
	}
	quoted, escaped := false, false
	for i := open; i < len(line); i++ {
		switch c := line[i]; {
		case escaped:
			escaped = false
		case c == '\\':
			escaped = quoted
		case c == '"':
			quoted = !quoted
		case c == '}' && !quoted:
			return line[:i+1]
		}
	}
	return line
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

//go:build k8s

package chart_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// operationsValues are the operator-facing pod settings: a mounted CA
// bundle (every pod, and one more volume for tickets), topology spread,
// a priority class, pod labels (one tries to replace a chart label) and
// ServiceAccount annotations.
var operationsValues = []string{
	"--set", "defaults.extraVolumes[0].name=ca", "--set", "defaults.extraVolumes[0].configMap.name=private-ca",
	"--set", "defaults.extraVolumeMounts[0].name=ca", "--set", "defaults.extraVolumeMounts[0].mountPath=/etc/sharedworld/ca",
	"--set", "defaults.extraVolumeMounts[0].readOnly=true",
	"--set", "services.tickets.extraVolumes[0].name=spool", "--set", "services.tickets.extraVolumes[0].emptyDir.sizeLimit=1Gi",
	"--set", "services.tickets.extraVolumeMounts[0].name=spool", "--set", "services.tickets.extraVolumeMounts[0].mountPath=/spool",
	"--set", "services.tickets.extraEnv[0].name=SSL_CERT_FILE", "--set", "services.tickets.extraEnv[0].value=/etc/sharedworld/ca/ca.crt",
	"--set", "defaults.topologySpreadConstraints[0].maxSkew=1", "--set", "defaults.topologySpreadConstraints[0].topologyKey=topology.kubernetes.io/zone",
	"--set", "defaults.topologySpreadConstraints[0].whenUnsatisfiable=ScheduleAnyway",
	"--set", "defaults.priorityClassName=world-critical",
	"--set", "defaults.podLabels.team=world", "--set", "defaults.podLabels.app\\.kubernetes\\.io/component=hijacked",
	"--set", "serviceAccount.annotations.iam\\.gke\\.io/gcp-service-account=world@example.iam.gserviceaccount.com",
}

// podSpecs are the pod templates of the rendered services and jobs (not
// the operator's, another template's), by kind/name.
func podSpecs(objs []obj) map[string]any {
	out := map[string]any{}
	for _, o := range objs {
		if strings.HasSuffix(o.name(), "-operator") || str(o, "metadata", "annotations", "helm.sh/hook") != "" {
			continue // the operator's, and hooks that run it (uninstall)
		}
		switch o.kind() {
		case "Deployment", "Job":
			out[o.kind()+"/"+o.name()] = get(o, "spec", "template")
		case "CronJob":
			out[o.kind()+"/"+o.name()] = get(o, "spec", "jobTemplate", "spec", "template")
		}
	}
	return out
}

// Item 2 of issue 23: extra volumes and mounts (defaults and per service),
// topology spread, priority class, pod labels and ServiceAccount
// annotations reach every pod of the services and jobs.
func TestPodSettingsReachEveryPod(t *testing.T) {
	_, objs := render(t, operationsValues...)
	pods := podSpecs(objs)
	if len(pods) < 8 {
		t.Fatalf("%d pod templates", len(pods))
	}
	for where, tpl := range pods {
		spec := get(tpl, "spec")
		component := str(tpl, "metadata", "labels", "app.kubernetes.io/component")
		var vols, mounts []string
		for _, v := range get(spec, "volumes").([]any) {
			vols = append(vols, str(v, "name"))
		}
		for _, m := range get(spec, "containers", "0", "volumeMounts").([]any) {
			mounts = append(mounts, str(m, "name")+":"+str(m, "mountPath"))
		}
		wantVols, wantMounts := []string{"tmp", "ca"}, []string{"tmp:/tmp", "ca:/etc/sharedworld/ca"}
		if component == "tickets" {
			wantVols, wantMounts = append(wantVols, "spool"), append(wantMounts, "spool:/spool")
		}
		if !slices.Equal(vols, wantVols) || !slices.Equal(mounts, wantMounts) {
			t.Errorf("%s: volumes %v mounts %v, want %v %v", where, vols, mounts, wantVols, wantMounts)
		}
		if str(spec, "priorityClassName") != "world-critical" {
			t.Errorf("%s: priorityClassName %q", where, str(spec, "priorityClassName"))
		}
		if l := get(tpl, "metadata", "labels"); str(l, "team") != "world" || component == "hijacked" || component == "" {
			t.Errorf("%s: pod labels %v", where, l)
		}
		tsc := get(spec, "topologySpreadConstraints", "0")
		if str(tsc, "topologyKey") != "topology.kubernetes.io/zone" ||
			str(tsc, "labelSelector", "matchLabels", "app.kubernetes.io/component") != component ||
			str(tsc, "labelSelector", "matchLabels", "app.kubernetes.io/instance") != "world" {
			t.Errorf("%s: topologySpreadConstraints %v (component %s)", where, get(spec, "topologySpreadConstraints"), component)
		}
	}
	found := false
	for _, o := range objs {
		if o.kind() == "ServiceAccount" && o.name() == fullname {
			found = str(o, "metadata", "annotations", "iam.gke.io/gcp-service-account") == "world@example.iam.gserviceaccount.com"
		}
	}
	if !found {
		t.Error("the services' ServiceAccount lacks its annotation")
	}
	// Without them, nothing extra is rendered.
	_, objs = render(t)
	for where, tpl := range podSpecs(objs) {
		spec := get(tpl, "spec")
		if len(get(spec, "volumes").([]any)) != 1 || get(spec, "priorityClassName") != nil || get(spec, "topologySpreadConstraints") != nil {
			t.Errorf("%s: defaults render extras: %v", where, spec)
		}
	}
}

// Item 3: the drain delay reaches every service as a Go duration, and a
// grace period that does not exceed it is refused at render time.
func TestDrainDelay(t *testing.T) {
	for _, tc := range []struct {
		extra []string
		want  string
	}{{nil, "5s"}, {[]string{"--set", "defaults.drainDelaySeconds=12"}, "12s"}, {[]string{"--set", "defaults.drainDelaySeconds=0"}, "0s"}} {
		_, objs := render(t, tc.extra...)
		got := "<none>"
		for _, o := range objs {
			if o.kind() == "ConfigMap" && o.name() == fullname+"-config" {
				got = str(o, "data", "WORLD_DRAIN_DELAY")
			}
		}
		if got != tc.want {
			t.Errorf("%v: WORLD_DRAIN_DELAY = %q, want %q", tc.extra, got, tc.want)
		}
	}
	for _, grace := range []string{"5", "3"} {
		out, err := renderErr(t, append(rendered, "--set", "defaults.terminationGracePeriodSeconds="+grace, "--set", "defaults.drainDelaySeconds=5")...)
		if err == nil || !strings.Contains(out, "defaults.terminationGracePeriodSeconds ("+grace+") must exceed defaults.drainDelaySeconds (5)") {
			t.Errorf("grace %s, delay 5: err %v\n%s", grace, err, out)
		}
	}
	if out, err := renderErr(t, append(rendered, "--set", "defaults.drainDelaySeconds=-1")...); err == nil || !strings.Contains(out, "drainDelaySeconds") {
		t.Errorf("a negative delay: err %v\n%s", err, out)
	}
}

// longRelease is as long a release name as Helm accepts (53 characters).
const longRelease = "a-release-name-of-fifty-three-characters-is-accepted1"

// Item 4: with the longest release name Helm accepts, the CronJob's name
// leaves room for its Jobs' suffix (52), the rebuild Job's name fits a
// label (63, its pods' job-name), every label value fits, and the names
// still end with what the alerts match.
func TestNamesFitTheLongestRelease(t *testing.T) {
	if len(longRelease) != 53 {
		t.Fatalf("longRelease has %d characters", len(longRelease))
	}
	long := exec.Command(filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "helm"), append([]string{"template", longRelease + "x", "charts/shared-world"}, rendered...)...)
	long.Dir = root(t)
	if out, err := long.CombinedOutput(); err == nil {
		t.Fatalf("helm accepted a 54-character release name:\n%.300s", out)
	}
	_, objs := renderAs(t, longRelease, "--set", "bulletinRebuild.enabled=true", "--set", "services.bulletin.aggregator.replicas=0")
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.kind()]++
		switch o.kind() {
		case "CronJob":
			if len(o.name()) > 52 || !strings.HasSuffix(o.name(), "-governance-check") {
				t.Errorf("CronJob %s: %d characters (at most 52), suffix -governance-check", o.name(), len(o.name()))
			}
		case "Job":
			if len(o.name()) > 63 {
				t.Errorf("Job %s: %d characters (at most 63)", o.name(), len(o.name()))
			}
			if strings.HasSuffix(o.name(), "-bulletin-rebuild-1") {
				kinds["rebuild Job"]++
			}
		case "Service":
			if len(o.name()) > 63 {
				t.Errorf("Service %s: %d characters", o.name(), len(o.name()))
			}
		}
		checkLabels(t, o.kind()+"/"+o.name(), o)
	}
	if kinds["CronJob"] != 1 || kinds["rebuild Job"] != 1 {
		t.Fatalf("kinds %v: want the CronJob and the rebuild Job (suffix -bulletin-rebuild-1)", kinds)
	}
}

// checkLabels: every label value anywhere in the object (metadata,
// templates, selectors) has at most 63 characters.
func checkLabels(t *testing.T, where string, v any) {
	t.Helper()
	switch m := v.(type) {
	case obj:
		checkLabels(t, where, map[string]any(m))
	case map[string]any:
		for k, c := range m {
			if k == "labels" || k == "matchLabels" {
				if labels, ok := c.(map[string]any); ok {
					for lk, lv := range labels {
						if s := fmt.Sprint(lv); len(s) > 63 {
							t.Errorf("%s: label %s=%s has %d characters", where, lk, s, len(s))
						}
					}
				}
			}
			checkLabels(t, where, c)
		}
	case []any:
		for _, c := range m {
			checkLabels(t, where, c)
		}
	}
}

// Item 5: the rebuild Job is refused beside an aggregator that is up; with
// the aggregator scaled to 0 it is rendered (the cluster check, no
// aggregator pod left, is in TestChartOnACluster). The readers only read
// and stay up.
func TestBulletinRebuildNeedsTheBulletinDown(t *testing.T) {
	out, err := renderErr(t, append(rendered, "--set", "bulletinRebuild.enabled=true")...)
	if err == nil || !strings.Contains(out, "bulletinRebuild.enabled needs services.bulletin.aggregator.replicas=0") {
		t.Errorf("rebuild beside a live bulletin: err %v\n%.500s", err, out)
	}
	_, objs := render(t, "--set", "bulletinRebuild.enabled=true", "--set", "services.bulletin.aggregator.replicas=0")
	jobs := 0
	for _, o := range objs {
		if o.kind() == "Deployment" && o.name() == fullname+"-bulletin-aggregator" && get(o, "spec", "replicas") != float64(0) {
			t.Errorf("aggregator replicas %v during the rebuild", get(o, "spec", "replicas"))
		}
		if o.kind() == "Job" && str(o, "metadata", "annotations", "helm.sh/hook") == "" {
			jobs++ // not the uninstall hook
		}
	}
	if jobs != 1 {
		t.Errorf("%d Jobs, want the rebuild", jobs)
	}
}

// Item 6: no PodDisruptionBudget can block a node drain: where the
// replicas (autoscaler minimum when it is on) are 1, or no more than
// minAvailable, the budget allows one pod to go.
func TestBudgetsNeverBlockADrain(t *testing.T) {
	_, objs := render(t,
		"--set", "services.docs.replicas=1", // autoscaling off by default
		"--set", "services.identity.autoscaling.minReplicas=1",
		"--set", "services.tickets.autoscaling.enabled=false", "--set", "services.tickets.replicas=2", "--set", "services.tickets.minAvailable=2",
		"--set", "services.messaging.autoscaling.enabled=false", "--set", "services.messaging.replicas=3", "--set", "services.messaging.minAvailable=2",
		"--set", "services.bulletin.autoscaling.minReplicas=1",
	)
	want := map[string]string{
		"docs": "maxUnavailable=1", "identity": "maxUnavailable=1", "tickets": "maxUnavailable=1", "bulletin": "maxUnavailable=1",
		"messaging": "minAvailable=2", "governance": "minAvailable=1", "plots-storage": "minAvailable=1",
		"bulletin-aggregator": "minAvailable=1",
	}
	seen := 0
	for _, o := range objs {
		if o.kind() != "PodDisruptionBudget" {
			continue
		}
		name := strings.TrimPrefix(o.name(), fullname+"-")
		spec := get(o, "spec").(map[string]any)
		var got []string
		for _, k := range []string{"maxUnavailable", "minAvailable"} {
			if v, ok := spec[k]; ok {
				got = append(got, fmt.Sprintf("%s=%v", k, v))
			}
		}
		if w, ok := want[name]; ok {
			seen++
			if strings.Join(got, ",") != w {
				t.Errorf("%s: %v, want %s", name, got, w)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%d budgets checked, want %d", seen, len(want))
	}
}

// secretChecksums are the checksum/secret annotations of the Deployments' pods.
func secretChecksums(t *testing.T, objs []obj) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, o := range objs {
		if o.kind() == "Deployment" && !strings.HasSuffix(o.name(), "-operator") {
			out[o.name()] = str(o, "spec", "template", "metadata", "annotations", "checksum/secret")
			if out[o.name()] == "" {
				t.Errorf("%s: no checksum/secret annotation", o.name())
			}
		}
	}
	return out
}

// Item 7: a change of the chart's Secret changes every pod template (so
// the pods roll); the same values give the same checksum (stability across
// upgrades with a cluster is in TestChartOnACluster).
func TestSecretChangesRollThePods(t *testing.T) {
	_, a := render(t)
	_, b := render(t)
	_, c := render(t, "--set", "secrets.ambassadorToken=another-token")
	_, d := render(t, "--set", "mongodb.existingSecret=", "--set", "mongodb.uri=mongodb://other:27017")
	base := secretChecksums(t, a)
	if len(base) < 7 {
		t.Fatalf("checksums %v", base)
	}
	for name, sum := range base {
		if secretChecksums(t, b)[name] != sum {
			t.Errorf("%s: the same values give another checksum", name)
		}
		if secretChecksums(t, c)[name] == sum || secretChecksums(t, d)[name] == sum {
			t.Errorf("%s: a changed Secret keeps the checksum", name)
		}
	}
}

// Item 8: without a cluster (helm template, GitOps) the chart cannot read
// back its generated keys, so it refuses to generate them rather than
// render a new ballot key every time; an existing Secret, or both values
// given, render.
func TestTemplateNeverRotatesTheBallotKey(t *testing.T) {
	idp := []string{"--set-string", "secrets.providerKeys=test=" + testBallotKey}
	for _, extra := range [][]string{nil, {"--set", "secrets.ambassadorToken=t"}, {"--set", "secrets.ballotKey=" + testBallotKey}} {
		out, err := renderErr(t, append(idp, extra...)...)
		if err == nil || !strings.Contains(out, "secrets.existingSecret") || !strings.Contains(out, "secrets.ballotKey") {
			t.Errorf("%v: rendered without a cluster or a ballot key: err %v\n%.300s", extra, err, out)
		}
	}
	for _, extra := range [][]string{
		{"--set", "secrets.existingSecret=world-secrets", "--set", "identityProvider.development=true"},
		{"--set", "secrets.ambassadorToken=t", "--set", "secrets.ballotKey=" + testBallotKey},
	} {
		if out, err := renderErr(t, append(idp, extra...)...); err != nil {
			t.Errorf("%v: %v\n%.500s", extra, err, out)
		}
	}
}

// Item 9: the ServiceMonitors and the PrometheusRule have their own
// switches under the master monitoring.enabled.
func TestMonitoringToggles(t *testing.T) {
	count := func(extra ...string) (sms, rules, dashboards int) {
		_, objs := render(t, append(slices.Clone(monitoringAPIs), extra...)...)
		for _, o := range objs {
			switch {
			case o.kind() == "ServiceMonitor":
				sms++
			case o.kind() == "PrometheusRule":
				rules++
			case o.kind() == "ConfigMap" && strings.Contains(o.name(), "-dashboard-"):
				dashboards++
			}
		}
		return
	}
	sms, rules, dash := count()
	if sms < 7 || rules != 1 || dash < 1 {
		t.Fatalf("defaults: %d ServiceMonitors, %d PrometheusRules, %d dashboards", sms, rules, dash)
	}
	for _, tc := range []struct {
		set                string
		sms, rules, boards int
	}{
		{"monitoring.serviceMonitor.enabled=false", 0, 1, dash},
		{"monitoring.prometheusRule.enabled=false", sms, 0, dash},
		{"monitoring.enabled=false", 0, 0, 0},
	} {
		s, r, d := count("--set", tc.set)
		if s != tc.sms || r != tc.rules || d != tc.boards {
			t.Errorf("%s: %d ServiceMonitors, %d PrometheusRules, %d dashboards; want %d, %d, %d", tc.set, s, r, d, tc.sms, tc.rules, tc.boards)
		}
	}
}

// Item 10: `helm test` is a pod of the probe image asking every service's
// Service for /readyz on its admin port and the bulletin's for the
// bulletin document; every address is a rendered Service and port, and
// every NetworkPolicy lets the pod reach the admin port.
func TestHelmTestPod(t *testing.T) {
	_, objs := render(t)
	ports := map[string]bool{}
	var pod obj
	for _, o := range objs {
		switch o.kind() {
		case "Service":
			for _, p := range get(o, "spec", "ports").([]any) {
				ports[fmt.Sprintf("%s:%v", o.name(), get(p, "port"))] = true
			}
		case "Pod":
			pod = o
		}
	}
	if pod == nil {
		t.Fatal("no test pod")
	}
	if str(pod, "metadata", "annotations", "helm.sh/hook") != "test" || str(pod, "spec", "restartPolicy") != "Never" {
		t.Errorf("test pod metadata %v restartPolicy %s", get(pod, "metadata"), str(pod, "spec", "restartPolicy"))
	}
	c := get(pod, "spec", "containers", "0")
	if str(c, "image") != "sharedworld/probe:"+appVersion(t) || get(c, "command") != nil {
		t.Errorf("test container image %s command %v", str(c, "image"), get(c, "command"))
	}
	var urls []string
	for _, a := range get(c, "args").([]any) {
		if s := a.(string); !strings.HasPrefix(s, "-") {
			urls = append(urls, s)
		}
	}
	url := regexp.MustCompile(`^http://([a-z0-9-]+):(\d+)(/.*)$`)
	var want []string
	for _, e := range table(t) {
		want = append(want, fmt.Sprintf("http://%s-%s:9090/readyz", fullname, e.Name))
	}
	want = append(want, "http://"+fullname+"-bulletin:8080/api/world/bulletin")
	if !slices.Equal(urls, want) {
		t.Errorf("test addresses %v, want %v", urls, want)
	}
	for _, u := range urls {
		if m := url.FindStringSubmatch(u); m == nil || !ports[m[1]+":"+m[2]] {
			t.Errorf("%s: no such Service port", u)
		}
	}
	for _, o := range objs {
		if o.kind() != "NetworkPolicy" || get(o, "spec", "ingress") == nil {
			continue
		}
		allowed := false
		for _, rule := range get(o, "spec", "ingress").([]any) {
			for _, from := range get(rule, "from").([]any) {
				if str(from, "podSelector", "matchLabels", "app.kubernetes.io/component") == "helm-test" {
					allowed = true
				}
			}
		}
		if !allowed {
			t.Errorf("NetworkPolicy %s keeps the test pod out", o.name())
		}
	}
	_, objs = render(t, "--set", "tests.enabled=false")
	for _, o := range objs {
		if o.kind() == "Pod" {
			t.Errorf("a test pod with tests.enabled=false")
		}
	}
}

// Item 1: the tag the chart deploys by default is the tag `make images`
// gives by default (and under the repository it pushes to).
func TestDefaultImageTagIsWhatMakeImagesTags(t *testing.T) {
	cmd := exec.Command("make", "-n", "-s", "images")
	cmd.Dir = root(t)
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "IMAGE_VERSION=") && !strings.HasPrefix(e, "IMAGE_REPO=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n images: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`-version (\S+) -repo (\S+)`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("make -n images passes no -version/-repo:\n%s", out)
	}
	_, objs := render(t)
	n := 0
	for _, o := range objs {
		if o.kind() != "Deployment" {
			continue
		}
		n++
		component := str(o, "spec", "template", "metadata", "labels", "app.kubernetes.io/component")
		component = strings.TrimSuffix(component, "-aggregator") // the bulletin's second workload, same image
		if got, want := str(o, "spec", "template", "spec", "containers", "0", "image"), m[2]+"/"+component+":"+m[1]; got != want {
			t.Errorf("%s deploys %s; make images tags %s", o.name(), got, want)
		}
	}
	if n < 7 {
		t.Errorf("%d Deployments", n)
	}
}

func appVersion(t *testing.T) string {
	t.Helper()
	out := helm(t, "show", "chart", "charts/shared-world")
	m := regexp.MustCompile(`(?m)^appVersion: "?([^"\n]+)"?$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no appVersion in\n%s", out)
	}
	return m[1]
}

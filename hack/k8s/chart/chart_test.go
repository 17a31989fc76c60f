//go:build k8s

package chart_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

const fullname = "world-shared-world"

var valueSets = map[string][]string{
	"defaults":   nil,
	"production": {"-f", "deploy/values-production.yaml"},
	"everything": {"--set", "bulletinRebuild.enabled=true", "--set", "services.bulletin.aggregator.replicas=0", "--set", "identityProvider.development=true", "--set", "mongodb.existingSecret=", "--set", "mongodb.uri=mongodb://mongo:27017"},
	"operations": operationsValues,
}

func TestLintStrict(t *testing.T) {
	for name, extra := range valueSets {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"lint", "--strict", "charts/shared-world"}, rendered...)
			out := helm(t, append(args, extra...)...)
			if !strings.Contains(out, "1 chart(s) linted, 0 chart(s) failed") {
				t.Fatal(out)
			}
		})
	}
}

// Each path prefix of the service table reaches, through the rendered
// Ingresses (Prefix paths: whole segments, the longest wins, as the local
// runner routes), the Service of the entry that owns it, and each
// Ingress carries its service's body limit.
func TestIngressFollowsTheServiceTable(t *testing.T) {
	_, objs := render(t)
	type route struct{ path, service, ingress string }
	var routes []route
	limits := map[string]string{}
	for _, o := range objs {
		if o.kind() != "Ingress" {
			continue
		}
		limits[o.name()] = str(o, "metadata", "annotations", "nginx.ingress.kubernetes.io/proxy-body-size")
		for _, r := range get(o, "spec", "rules").([]any) {
			for _, p := range get(r, "http", "paths").([]any) {
				if str(p, "pathType") != "Prefix" {
					t.Errorf("%s: pathType %q", o.name(), str(p, "pathType"))
				}
				routes = append(routes, route{str(p, "path"), str(p, "backend", "service", "name"), o.name()})
			}
		}
	}
	owner := func(path string) string {
		best, n := "", -1
		for _, r := range routes {
			pre := strings.TrimSuffix(r.path, "/")
			if (pre == "" || path == pre || strings.HasPrefix(path, pre+"/")) && len(r.path) > n {
				best, n = r.service, len(r.path)
			}
		}
		return best
	}
	services := map[string]bool{}
	for _, o := range objs {
		if o.kind() == "Service" {
			services[o.name()] = true
		}
	}
	count := 0
	for _, e := range table(t) {
		want := fullname + "-" + e.Name
		if !services[want] {
			t.Errorf("no Service %s for %s", want, e.Name)
		}
		if got, wantLimit := limits[want], fmt.Sprintf("%dk", e.BodyLimit/1024); got != wantLimit {
			t.Errorf("%s body limit %q, want %q", e.Name, got, wantLimit)
		}
		for _, p := range e.Prefixes {
			count++
			for _, probe := range []string{p, strings.TrimSuffix(p, "/") + "/some/deeper/path"} {
				if p == "/" {
					probe = "/unclaimed/path"
				}
				if got := owner(probe); got != want {
					t.Errorf("%s routes to %q, want %q (prefix %s of %s)", probe, got, want, p, e.Name)
				}
			}
		}
	}
	if len(routes) != count {
		t.Errorf("%d Ingress paths for %d table prefixes", len(routes), count)
	}
}

// Every pod the chart makes runs as the image's non-root user with no
// privilege to gain, no capability, the runtime's seccomp profile and a
// read-only root filesystem; every service is probed on its admin port.
func TestPodsAreLockedDown(t *testing.T) {
	for name, extra := range valueSets {
		t.Run(name, func(t *testing.T) {
			_, objs := render(t, extra...)
			pods := 0
			for _, o := range objs {
				var spec any
				switch o.kind() {
				case "Deployment", "Job":
					spec = get(o, "spec", "template", "spec")
				case "CronJob":
					spec = get(o, "spec", "jobTemplate", "spec", "template", "spec")
				case "Pod":
					spec = get(o, "spec")
				default:
					continue
				}
				pods++
				where := o.kind() + "/" + o.name()
				if get(spec, "securityContext", "runAsNonRoot") != true || str(spec, "securityContext", "seccompProfile", "type") != "RuntimeDefault" {
					t.Errorf("%s: pod securityContext %v", where, get(spec, "securityContext"))
				}
				// Only the operator (and its uninstall hook, as the operator's
				// ServiceAccount) and the bulletin's aggregator (its Lease)
				// talk to the Kubernetes API.
				account := str(spec, "serviceAccountName")
				if api := strings.HasSuffix(account, "-operator") || strings.HasSuffix(account, "-bulletin-aggregator"); get(spec, "automountServiceAccountToken") != false && !api {
					t.Errorf("%s mounts a service account token", where)
				}
				for _, c := range get(spec, "containers").([]any) {
					sc := get(c, "securityContext")
					if get(sc, "allowPrivilegeEscalation") != false || get(sc, "readOnlyRootFilesystem") != true ||
						fmt.Sprint(get(sc, "capabilities", "drop")) != "[ALL]" {
						t.Errorf("%s: container securityContext %v", where, sc)
					}
					if get(c, "resources", "requests") == nil || get(c, "resources", "limits", "memory") == nil {
						t.Errorf("%s: resources %v", where, get(c, "resources"))
					}
					if o.kind() != "Deployment" || strings.HasSuffix(o.name(), "-operator") {
						continue
					}
					if str(c, "readinessProbe", "httpGet", "path") != "/readyz" || str(c, "livenessProbe", "httpGet", "path") != "/healthz" ||
						str(c, "readinessProbe", "httpGet", "port") != "admin" {
						t.Errorf("%s: probes %v %v", where, get(c, "readinessProbe"), get(c, "livenessProbe"))
					}
				}
			}
			if pods < 7 {
				t.Errorf("%d pod templates", pods)
			}
		})
	}
}

// The governance check: minute 19 of every hour, never two at once, a
// deadline for late starts, bounded history, governance's own job.
func TestGovernanceCronJob(t *testing.T) {
	_, objs := render(t)
	var cj obj
	for _, o := range objs {
		if o.kind() == "CronJob" {
			cj = o
		}
	}
	if cj == nil {
		t.Fatal("no CronJob")
	}
	spec := get(cj, "spec")
	if str(spec, "schedule") != "19 * * * *" || str(spec, "concurrencyPolicy") != "Forbid" ||
		get(spec, "startingDeadlineSeconds") != float64(600) || get(spec, "successfulJobsHistoryLimit") != float64(3) ||
		get(spec, "failedJobsHistoryLimit") != float64(5) {
		t.Errorf("CronJob spec %v", spec)
	}
	c := get(spec, "jobTemplate", "spec", "template", "spec", "containers", "0")
	var job string
	for _, e := range table(t) {
		if e.Name == "governance" {
			job = e.Jobs[0]
		}
	}
	if fmt.Sprint(get(c, "args")) != "["+job+"]" || !strings.Contains(str(c, "image"), "/governance:") {
		t.Errorf("container %v, want governance's %q", c, job)
	}
}

// The bulletin is readers and an aggregator: the readers roll without
// losing a ready pod (maxUnavailable 0) under an autoscaler, the
// aggregator runs two replicas (one leading, through a Lease it alone may
// read and update), each with a budget that lets a drain take one pod;
// every other service with autoscaling on has an autoscaler too; the
// rebuild Job exists only when asked for.
func TestBulletinReadersAndAggregator(t *testing.T) {
	_, objs := render(t)
	hpas := []string{}
	seen := map[string]bool{}
	for _, o := range objs {
		switch {
		case o.kind() == "Deployment" && (o.name() == fullname+"-bulletin" || o.name() == fullname+"-bulletin-aggregator"):
			if str(o, "spec", "strategy", "type") != "RollingUpdate" || get(o, "spec", "strategy", "rollingUpdate", "maxUnavailable") != float64(0) {
				t.Errorf("%s strategy: %v", o.name(), get(o, "spec", "strategy"))
			}
			role := ""
			for _, e := range get(o, "spec", "template", "spec", "containers", "0", "env").([]any) {
				if e.(map[string]any)["name"] == "WORLD_BULLETIN_ROLE" {
					role = e.(map[string]any)["value"].(string)
				}
			}
			if o.name() == fullname+"-bulletin" && (role != "reader" || get(o, "spec", "replicas") != nil) {
				t.Errorf("readers: role %q, replicas %v (the autoscaler's)", role, get(o, "spec", "replicas"))
			}
			if o.name() == fullname+"-bulletin-aggregator" && (role != "aggregator" || get(o, "spec", "replicas") != float64(2) ||
				str(o, "spec", "template", "spec", "serviceAccountName") != fullname+"-bulletin-aggregator") {
				t.Errorf("aggregator: role %q, spec %v", role, get(o, "spec"))
			}
			seen[o.name()] = true
		case o.kind() == "PodDisruptionBudget" && (o.name() == fullname+"-bulletin" || o.name() == fullname+"-bulletin-aggregator"):
			if get(o, "spec", "minAvailable") != float64(1) {
				t.Errorf("%s budget: %v", o.name(), get(o, "spec"))
			}
			seen["pdb "+o.name()] = true
		case o.kind() == "Role" && o.name() == fullname+"-bulletin-aggregator":
			if fmt.Sprint(get(o, "rules")) != "[map[apiGroups:[coordination.k8s.io] resources:[leases] verbs:[create]] map[apiGroups:[coordination.k8s.io] resourceNames:["+fullname+"-bulletin-aggregator] resources:[leases] verbs:[get update]]]" {
				t.Errorf("aggregator Role: %v", get(o, "rules"))
			}
			seen["role"] = true
		case o.kind() == "HorizontalPodAutoscaler":
			hpas = append(hpas, o.name())
		case o.kind() == "Job" && str(o, "metadata", "annotations", "helm.sh/hook") == "":
			t.Errorf("a Job by default: %s", o.name())
		}
	}
	if len(seen) != 5 {
		t.Errorf("bulletin objects found: %v; want both Deployments, both budgets and the Role", seen)
	}
	slices.Sort(hpas)
	want := []string{fullname + "-bulletin", fullname + "-governance", fullname + "-identity", fullname + "-messaging", fullname + "-plots-storage", fullname + "-tickets"}
	if !slices.Equal(hpas, want) {
		t.Errorf("HPAs %v, want %v", hpas, want)
	}
	_, objs = render(t, "--set", "bulletinRebuild.enabled=true", "--set", "services.bulletin.aggregator.replicas=0")
	found := false
	for _, o := range objs {
		if o.kind() == "Job" && fmt.Sprint(get(o, "spec", "template", "spec", "containers", "0", "args")) == "[rebuild]" {
			found = true
		}
	}
	if !found {
		t.Error("no bulletin rebuild Job when enabled")
	}
}

// Existing Secrets replace the chart's: nothing generated, every reference
// points at them; the development identity provider is off by default.
func TestSecretsAndDevelopmentProvider(t *testing.T) {
	_, objs := render(t, "-f", "deploy/values-production.yaml")
	for _, o := range objs {
		if o.kind() == "Secret" {
			t.Errorf("a Secret with existing ones: %s", o.name())
		}
		if o.kind() == "Deployment" && o.name() == fullname+"-governance" {
			refs := map[string]string{}
			for _, e := range get(o, "spec", "template", "spec", "containers", "0", "env").([]any) {
				refs[str(e, "name")] = str(e, "valueFrom", "secretKeyRef", "name")
			}
			if refs["WORLD_GOVERNANCE_BALLOT_KEY"] != "world-secrets" || refs["WORLD_MONGO_URI"] != "world-mongodb-admin-sharedworld" {
				t.Errorf("secret references %v", refs)
			}
		}
	}
	for _, extra := range [][]string{nil, {"--set", "identityProvider.development=true"}} {
		_, objs := render(t, extra...)
		for _, o := range objs {
			if o.kind() != "Deployment" || o.name() != fullname+"-identity" {
				continue
			}
			for _, e := range get(o, "spec", "template", "spec", "containers", "0", "env").([]any) {
				if str(e, "name") == "WORLD_DEV_IDP" && str(e, "value") != fmt.Sprint(extra != nil) {
					t.Errorf("%v: WORLD_DEV_IDP=%s", extra, str(e, "value"))
				}
			}
		}
	}
}

// Behind the Ingress the per-source rate limits read the client's address
// from the controller's header; without the Ingress nothing trustworthy sets
// it, so the services use the connection's address.
func TestClientAddressHeaderOnlyBehindTheIngress(t *testing.T) {
	cases := []struct {
		name  string
		extra []string
		want  string
	}{
		{"default", nil, "X-Real-IP"},
		{"another header", []string{"--set", "world.clientIPHeader=X-Forwarded-For"}, "X-Forwarded-For"},
		{"no ingress", []string{"--set", "ingress.enabled=false"}, ""},
		{"turned off", []string{"--set", "world.clientIPHeader="}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, objs := render(t, tc.extra...)
			found := false
			for _, o := range objs {
				if o.kind() == "ConfigMap" && o.name() == fullname+"-config" {
					found = true
					if got := str(o, "data", "WORLD_CLIENT_IP_HEADER"); got != tc.want {
						t.Errorf("WORLD_CLIENT_IP_HEADER = %q, want %q", got, tc.want)
					}
				}
			}
			if !found {
				t.Fatalf("no ConfigMap %s-config", fullname)
			}
		})
	}
}

// The request deadline reaches every service, and the schema refuses a value
// the services would refuse at start.
func TestRequestDeadline(t *testing.T) {
	_, objs := render(t, "--set", "world.requestDeadline=2500ms")
	got := ""
	for _, o := range objs {
		if o.kind() == "ConfigMap" && o.name() == fullname+"-config" {
			got = str(o, "data", "WORLD_REQUEST_DEADLINE")
		}
	}
	if got != "2500ms" {
		t.Errorf("WORLD_REQUEST_DEADLINE = %q, want 2500ms", got)
	}
	if out, err := renderErr(t, append(rendered, "--set", "world.requestDeadline=soon")...); err == nil || !strings.Contains(out, "requestDeadline") {
		t.Errorf("helm template with requestDeadline=soon: err %v, output %s", err, out)
	}
}

//go:build k8s

package chart_test

import (
	"io"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/yaml"
)

// renderRelease renders the chart as release name in namespace ns.
func renderRelease(t *testing.T, name, ns string, extra ...string) []obj {
	t.Helper()
	manifest := helm(t, append(append([]string{"template", name, "charts/shared-world", "--namespace", ns}, rendered...), extra...)...)
	dec := yaml.NewYAMLOrJSONDecoder(strings.NewReader(manifest), 4096)
	var out []obj
	for {
		var o obj
		if err := dec.Decode(&o); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatalf("decode the manifest: %v", err)
		}
		if o != nil {
			out = append(out, o)
		}
	}
}

func find(objs []obj, kind string, match func(obj) bool) obj {
	for _, o := range objs {
		if o.kind() == kind && match(o) {
			return o
		}
	}
	return nil
}

func args(container any) []string {
	var out []string
	for _, a := range get(container, "args").([]any) {
		out = append(out, a.(string))
	}
	return out
}

func isOperator(o obj) bool {
	return str(o, "metadata", "labels", "app.kubernetes.io/component") == "operator"
}

// Each release's operator elects its leader on its own Lease, in its own
// namespace, named after the release: the same release name in two
// namespaces, or two releases in one, never wait on each other's leader.
func TestOperatorLeasePerRelease(t *testing.T) {
	seen := map[string]string{}
	for _, rel := range [][2]string{{"world", "team-a"}, {"world", "team-b"}, {"other", "team-a"}} {
		objs := renderRelease(t, rel[0], rel[1])
		d := find(objs, "Deployment", isOperator)
		if d == nil {
			t.Fatalf("%s/%s: no operator Deployment", rel[1], rel[0])
		}
		a := args(get(d, "spec", "template", "spec", "containers", "0"))
		wantNS, wantID := "--leader-election-namespace="+rel[1], "--leader-election-id="+d.name()
		if !slices.Contains(a, wantNS) || !slices.Contains(a, wantID) || !slices.Contains(a, "--leader-elect=true") {
			t.Errorf("%s/%s: operator args %v, want %s and %s", rel[1], rel[0], a, wantNS, wantID)
		}
		lease := wantNS + " " + wantID
		if other, dup := seen[lease]; dup {
			t.Errorf("releases %s and %s/%s share the lease %s", other, rel[1], rel[0], lease)
		}
		seen[lease] = rel[1] + "/" + rel[0]
	}
}

// helm uninstall deletes the Worlds before anything else: a pre-delete
// Job runs the operator's image as the operator's ServiceAccount (which
// Helm deletes only after the hook), allowed to delete Worlds and remove
// their finalizers. Its name fits a Job's limit for the longest release
// name Helm accepts.
func TestUninstallHookReleasesWorlds(t *testing.T) {
	release := strings.Repeat("r", 53)
	objs := renderRelease(t, release, "team-a")
	hook := find(objs, "Job", func(o obj) bool { return str(o, "metadata", "annotations", "helm.sh/hook") == "pre-delete" })
	if hook == nil {
		t.Fatal("no pre-delete Job")
	}
	if n := len(hook.name()); n > 63 {
		t.Errorf("hook Job name %q has %d characters", hook.name(), n)
	}
	if p := str(hook, "metadata", "annotations", "helm.sh/hook-delete-policy"); !strings.Contains(p, "before-hook-creation") {
		t.Errorf("hook delete policy %q: a failed run would block the next uninstall", p)
	}
	op := find(objs, "Deployment", isOperator)
	spec := get(hook, "spec", "template", "spec")
	c := get(spec, "containers", "0")
	if str(c, "image") != str(op, "spec", "template", "spec", "containers", "0", "image") {
		t.Errorf("hook image %q, want the operator's", str(c, "image"))
	}
	if a := args(c); len(a) < 2 || a[0] != "release-worlds" || !slices.Contains(a, "--namespace=team-a") {
		t.Errorf("hook args %v", a)
	}
	sa := str(spec, "serviceAccountName")
	if sa != str(op, "spec", "template", "spec", "serviceAccountName") || str(spec, "restartPolicy") != "Never" {
		t.Errorf("hook runs as %q (restartPolicy %q), want the operator's ServiceAccount", sa, str(spec, "restartPolicy"))
	}
	if acct := find(objs, "ServiceAccount", func(o obj) bool { return o.name() == sa }); acct == nil ||
		str(acct, "metadata", "annotations", "helm.sh/hook") != "" {
		t.Errorf("ServiceAccount %s: %v (it must be a release object, there while the hook runs)", sa, acct)
	}
	role := find(objs, "Role", isOperator)
	for _, verb := range []string{"list", "delete", "update"} {
		granted := false
		for _, r := range get(role, "rules").([]any) {
			if slices.Contains(strs(get(r, "apiGroups")), "sharedworld.dev") && slices.Contains(strs(get(r, "resources")), "worlds") &&
				slices.Contains(strs(get(r, "verbs")), verb) {
				granted = true
			}
		}
		if !granted {
			t.Errorf("the operator's Role does not grant %s on worlds", verb)
		}
	}
}

func strs(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

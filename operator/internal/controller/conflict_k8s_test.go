//go:build k8s

package controller

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/yaml"

	worldv1 "sharedworld.dev/operator/api/v1alpha1"
)

// asOperator is cfg impersonating a ServiceAccount of ns bound to the Role
// controller-gen writes from the RBAC markers (the chart's copy of it).
func asOperator(t *testing.T, cfg *rest.Config, c client.Client, ns string) *rest.Config {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var generated rbacv1.ClusterRole
	must(t, yaml.Unmarshal(raw, &generated))
	ctx := context.Background()
	must(t, c.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "operator", Namespace: ns}}))
	must(t, c.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "operator", Namespace: ns}, Rules: generated.Rules}))
	must(t, c.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "operator", Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "operator"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "operator", Namespace: ns}}}))
	sa := rest.CopyConfig(cfg)
	sa.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":operator",
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}}
	// The Role is enforced: the ServiceAccount cannot list Worlds elsewhere.
	sc, err := client.New(sa, client.Options{Scheme: testScheme()})
	must(t, err)
	if err := sc.List(ctx, &worldv1.WorldList{}, client.InNamespace("default")); !apierrors.IsForbidden(err) {
		t.Fatalf("the operator's ServiceAccount lists Worlds outside its namespace: %v", err)
	}
	return sa
}

// passes counts the reconciles of each World.
type passes struct {
	reconcile.Reconciler
	mu sync.Mutex
	n  map[string]int
}

func (p *passes) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	p.mu.Lock()
	p.n[req.Name]++
	p.mu.Unlock()
	return p.Reconciler.Reconcile(ctx, req)
}

func (p *passes) of(name string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n[name]
}

// Two Worlds in one namespace on a real API server, the operator running
// as a ServiceAccount with the generated Role alone: the second is
// reported Conflict (an Event says so), its settings are never applied,
// and it is not reconciled again while the owner resyncs — no requeue
// storm. When the owner is deleted, it takes over.
func TestSecondWorldOnAPIServer(t *testing.T) {
	_, cfg, c := startEnv(t)
	ctx := context.Background()
	ns := "world"
	must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	for _, name := range []string{"bulletin", "governance"} {
		must(t, c.Create(ctx, testDeployment(ns, name)))
	}
	count := &passes{n: map[string]int{}}
	startOperator(t, asOperator(t, cfg, c, ns), ns, RealClock{}, &fakeBulletin{snap: Snapshot{Phase: "Founding", Population: 3}},
		func(r reconcile.Reconciler) reconcile.Reconciler { count.Reconciler = r; return count })

	first := &worldv1.World{ObjectMeta: metav1.ObjectMeta{Name: "first", Namespace: ns}, Spec: worldv1.WorldSpec{Name: "First", Note: "one"}}
	must(t, c.Create(ctx, first))
	ready := func(name string) *metav1.Condition {
		var w worldv1.World
		if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &w); err != nil {
			return nil
		}
		return meta.FindStatusCondition(w.Status.Conditions, ConditionReady)
	}
	eventually(t, "the first World is Ready", func() (bool, any) {
		r := ready("first")
		return r != nil && r.Status == metav1.ConditionTrue, r
	})
	second := &worldv1.World{ObjectMeta: metav1.ObjectMeta{Name: "second", Namespace: ns}, Spec: worldv1.WorldSpec{Name: "Second", Note: "two"}}
	must(t, c.Create(ctx, second))
	eventually(t, "the second World is in Conflict", func() (bool, any) {
		r := ready("second")
		return r != nil && r.Status == metav1.ConditionFalse && r.Reason == ReasonConflict &&
			contains(r.Message, "World first owns namespace world"), r
	})
	eventually(t, "a Warning Event tells of the conflict", func() (bool, any) {
		var list eventsv1.EventList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return false, err
		}
		for _, e := range list.Items {
			if e.Regarding.Name == "second" && e.Regarding.Kind == "World" && e.Reason == ReasonConflict &&
				e.Type == corev1.EventTypeWarning && e.ReportingController == "sharedworld-operator" {
				return true, e
			}
		}
		return false, len(list.Items)
	})

	// The owner resyncs every 500ms; while it does so three times, the
	// World in Conflict is left alone (its own status write and the
	// owner's wake it at most once more).
	atConflict, owner := count.of("second"), count.of("first")
	eventually(t, "the owner resyncs three times", func() (bool, any) { return count.of("first") >= owner+3, count.of("first") })
	if n := count.of("second") - atConflict; n > 1 {
		t.Errorf("the World in Conflict was reconciled %d more times while the owner resynced 3 times", n)
	}
	var cm corev1.ConfigMap
	must(t, c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "world-operator"}, &cm))
	if cm.Data["WORLD_NOTE"] != "one" {
		t.Errorf("settings %v, want the first World's", cm.Data)
	}
	var got worldv1.World
	must(t, c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "second"}, &got))
	if len(got.Finalizers) != 0 {
		t.Errorf("the World in Conflict holds finalizers %v", got.Finalizers)
	}

	must(t, c.Delete(ctx, first))
	eventually(t, "the second World takes over", func() (bool, any) {
		r := ready("second")
		var cm corev1.ConfigMap
		_ = c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "world-operator"}, &cm)
		return r != nil && r.Status == metav1.ConditionTrue && cm.Data["WORLD_NOTE"] == "two", r
	})
}

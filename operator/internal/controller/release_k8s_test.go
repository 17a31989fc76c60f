//go:build k8s

package controller

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	worldv1 "sharedworld.dev/operator/api/v1alpha1"
)

// The chart's pre-delete hook on a real API server. With the operator
// running, the Worlds go through its finalizer (settings removed,
// Deployments back on the chart's) and nothing is forced. With no
// operator (uninstalled first, or never running), a World holding the
// finalizer would block the namespace's deletion forever: the hook lets
// it go after the grace period.
func TestReleaseWorldsOnAPIServer(t *testing.T) {
	_, cfg, c := startEnv(t)
	ctx := context.Background()
	for _, ns := range []string{"served", "orphaned"} {
		must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
		for _, name := range []string{"bulletin", "governance"} {
			must(t, c.Create(ctx, testDeployment(ns, name)))
		}
	}
	// The operator of "served" only, as the chart runs one per release.
	startOperator(t, cfg, "served", RealClock{}, &fakeBulletin{snap: Snapshot{Phase: "Founding"}}, nil)
	must(t, c.Create(ctx, &worldv1.World{ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "served"}, Spec: worldv1.WorldSpec{Name: "W"}}))
	eventually(t, "the World is applied", func() (bool, any) {
		var w worldv1.World
		err := c.Get(ctx, types.NamespacedName{Namespace: "served", Name: "w"}, &w)
		return err == nil && len(w.Finalizers) == 1 && w.Status.SettingsHash != "" && annotationOf(t, c, "served", "bulletin") == w.Status.SettingsHash, err
	})

	forced, err := ReleaseWorlds(ctx, c, "served", 30*time.Second, 100*time.Millisecond)
	if err != nil || len(forced) != 0 {
		t.Fatalf("with the operator running: forced %v, %v", forced, err)
	}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "served", Name: "world-operator"}, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Errorf("the settings after the hook: %v", err)
	}
	if got := annotationOf(t, c, "served", "bulletin"); got != NoSettings {
		t.Errorf("bulletin rolled to %q after the hook, want the chart's", got)
	}

	// A World left with the finalizer and no operator to honour it.
	must(t, c.Create(ctx, &worldv1.World{ObjectMeta: metav1.ObjectMeta{Name: "left", Namespace: "orphaned", Finalizers: []string{Finalizer}},
		Spec: worldv1.WorldSpec{Name: "Left"}}))
	start := time.Now()
	forced, err = ReleaseWorlds(ctx, c, "orphaned", time.Second, 100*time.Millisecond)
	if err != nil || len(forced) != 1 || forced[0] != "left" {
		t.Fatalf("with no operator: forced %v, %v", forced, err)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("the finalizer was removed after %s, before the grace period", waited)
	}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "orphaned", Name: "left"}, &worldv1.World{}); !apierrors.IsNotFound(err) {
		t.Errorf("the orphaned World after the hook: %v", err)
	}
}

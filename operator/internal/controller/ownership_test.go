package controller

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	worldv1 "sharedworld.dev/operator/api/v1alpha1"
)

// secondWorld is a World created a minute after w, or at the same time
// with a name that sorts first when sameTime.
func secondWorld(f *fixture, name string, sameTime bool) *worldv1.World {
	at := f.clock.t.Add(time.Minute)
	if sameTime {
		at = f.clock.t
	}
	return &worldv1.World{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: key.Namespace, Generation: 1, UID: types.UID("uid-" + name),
		CreationTimestamp: metav1.NewTime(at)}, Spec: worldv1.WorldSpec{Name: "Usurper", Note: "mine now"}}
}

func (f *fixture) reconcileName(t *testing.T, name string) (ctrl.Result, *worldv1.World) {
	t.Helper()
	k := types.NamespacedName{Namespace: key.Namespace, Name: name}
	res, err := f.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: k})
	if err != nil {
		t.Fatal(err)
	}
	var w worldv1.World
	if err := f.c.Get(context.Background(), k, &w); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return res, &w
}

func (f *fixture) settings(t *testing.T) *corev1.ConfigMap {
	t.Helper()
	var cm corev1.ConfigMap
	if err := f.c.Get(context.Background(), types.NamespacedName{Namespace: key.Namespace, Name: "world-operator"}, &cm); apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		t.Fatal(err)
	}
	return &cm
}

// A second World in the namespace is reported Conflict, naming the owner,
// whether it comes before or after the owner applied and even when its
// name sorts first; it is never applied, never requeued, carries no
// finalizer, and a second pass writes nothing.
func TestSecondWorldIsInConflict(t *testing.T) {
	for _, tc := range []struct {
		name              string
		ownerAppliedFirst bool
		sameTime          bool
	}{{"after the owner applied", true, false}, {"before the owner's first pass", false, false}, {"same second, name sorts first", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, deployment("bulletin"), deployment("governance"))
			other := "other"
			if tc.sameTime {
				other = "a-world"
			}
			if tc.ownerAppliedFirst {
				f.reconcile(t)
			}
			if err := f.c.Create(context.Background(), secondWorld(f, other, tc.sameTime)); err != nil {
				t.Fatal(err)
			}
			if !tc.ownerAppliedFirst && tc.sameTime {
				t.Fatal("no such case")
			}
			f.events()
			writes := f.statusWrites
			res, w := f.reconcileName(t, other)
			if res != (ctrl.Result{}) {
				t.Errorf("a World in Conflict requeues: %+v", res)
			}
			ready := meta.FindStatusCondition(w.Status.Conditions, ConditionReady)
			if ready == nil || ready.Status != metav1.ConditionFalse || ready.Reason != ReasonConflict ||
				!contains(ready.Message, "World w owns namespace world") || ready.ObservedGeneration != 1 {
				t.Fatalf("Ready %+v", ready)
			}
			if controllerutil.ContainsFinalizer(w, Finalizer) || w.Status.SettingsHash != "" {
				t.Errorf("a World in Conflict holds a finalizer %v or settings %q", w.Finalizers, w.Status.SettingsHash)
			}
			if ev := f.events(); len(ev) != 1 || !contains(ev[0], "Warning Conflict World w owns") {
				t.Errorf("events %q", ev)
			}
			if got := testutilReady(other); got != 0 {
				t.Errorf("ready gauge %v for the World in Conflict", got)
			}
			f.reconcileName(t, other)
			if f.statusWrites != writes+1 || len(f.events()) != 0 {
				t.Errorf("a second pass in Conflict wrote %d times or recorded an Event", f.statusWrites-writes)
			}

			f.reconcile(t)
			if cm := f.settings(t); cm == nil || cm.Data["WORLD_NAME"] != "Test World" || !metav1.IsControlledBy(cm, &worldv1.World{ObjectMeta: metav1.ObjectMeta{UID: "uid-w"}}) {
				t.Errorf("settings %+v, want w's", cm)
			}
		})
	}
}

// When the owner goes, the World in Conflict takes over and applies.
func TestConflictEndsWhenTheOwnerGoes(t *testing.T) {
	f := newFixture(t, deployment("bulletin"), deployment("governance"))
	owner := f.reconcile(t)
	if err := f.c.Create(context.Background(), secondWorld(f, "other", false)); err != nil {
		t.Fatal(err)
	}
	f.reconcileName(t, "other")
	if err := f.c.Delete(context.Background(), owner); err != nil {
		t.Fatal(err)
	}
	// While the owner is being finalized, its settings still hold.
	if _, w := f.reconcileName(t, "other"); meta.FindStatusCondition(w.Status.Conditions, ConditionReady).Reason != ReasonConflict {
		t.Errorf("took over from an owner still being finalized: %+v", w.Status.Conditions)
	}
	f.reconcileName(t, "w")
	_, w := f.reconcileName(t, "other")
	if ready := meta.FindStatusCondition(w.Status.Conditions, ConditionReady); ready.Status != metav1.ConditionTrue {
		t.Fatalf("after the owner went: Ready %+v", ready)
	}
	if cm := f.settings(t); cm == nil || cm.Data["WORLD_NOTE"] != "mine now" {
		t.Errorf("settings %+v, want the new owner's", cm)
	}
	if got := f.annotation(t, "bulletin"); got != w.Status.SettingsHash {
		t.Errorf("bulletin rolled to %q, want %q", got, w.Status.SettingsHash)
	}
}

// A finalizer removes only what its World owns: a ConfigMap of the same
// name that the operator did not write is neither overwritten nor deleted,
// and a World in Conflict leaves the owner's settings and rollout alone.
func TestFinalizerRemovesOnlyWhatTheWorldOwns(t *testing.T) {
	t.Run("a ConfigMap the operator did not write", func(t *testing.T) {
		foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "world-operator", Namespace: key.Namespace},
			Data: map[string]string{"KEEP": "me"}}
		f := newFixture(t, deployment("bulletin"), deployment("governance"), foreign)
		w := f.reconcile(t)
		ready := meta.FindStatusCondition(w.Status.Conditions, ConditionReady)
		if ready.Status != metav1.ConditionFalse || !contains(ready.Message, "not managed by the operator") {
			t.Errorf("Ready %+v", ready)
		}
		if err := f.c.Delete(context.Background(), w); err != nil {
			t.Fatal(err)
		}
		if _, gone := f.reconcileName(t, "w"); gone.Name != "" {
			t.Fatalf("the World was kept: %v", gone.Finalizers)
		}
		if cm := f.settings(t); cm == nil || len(cm.Data) != 1 || cm.Data["KEEP"] != "me" {
			t.Errorf("the foreign ConfigMap after the World went: %+v", cm)
		}
	})
	t.Run("a World in Conflict with a finalizer", func(t *testing.T) {
		f := newFixture(t, deployment("bulletin"), deployment("governance"))
		owner := f.reconcile(t)
		second := secondWorld(f, "other", false)
		second.Finalizers = []string{Finalizer}
		if err := f.c.Create(context.Background(), second); err != nil {
			t.Fatal(err)
		}
		f.reconcileName(t, "other")
		if err := f.c.Delete(context.Background(), second); err != nil {
			t.Fatal(err)
		}
		if _, w := f.reconcileName(t, "other"); w.Name != "" {
			t.Fatalf("the World in Conflict was kept: %v", w.Finalizers)
		}
		if cm := f.settings(t); cm == nil || cm.Data["WORLD_NAME"] != "Test World" {
			t.Errorf("the owner's settings after the other World went: %+v", cm)
		}
		if got := f.annotation(t, "governance"); got != owner.Status.SettingsHash {
			t.Errorf("governance rolled to %q, want the owner's %q", got, owner.Status.SettingsHash)
		}
	})
}

func testutilReady(name string) float64 {
	return testutil.ToFloat64(worldReady.WithLabelValues(key.Namespace, name))
}

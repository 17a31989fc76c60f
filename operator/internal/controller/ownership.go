package controller

import (
	"context"
	"errors"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	worldv1 "sharedworld.dev/operator/api/v1alpha1"
)

// ManagedBy labels what the operator writes; with a World's controller
// reference it is how the operator knows a ConfigMap is its own.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedBy      = "sharedworld-operator"
)

// errNotOurs: the settings ConfigMap exists but neither this World nor the
// operator made it; overwriting or deleting it would destroy someone's data.
var errNotOurs = errors.New("not managed by the operator")

// owner is the World that owns ns: the one that controls the settings
// ConfigMap while it exists (so ownership never moves while settings are
// applied, even while that World is being deleted), else the oldest World
// not being deleted (creation time, then name, so every pass agrees).
func (r *WorldReconciler) owner(ctx context.Context, ns string) (*worldv1.World, error) {
	var list worldv1.WorldList
	if err := r.List(ctx, &list, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	var cm corev1.ConfigMap
	err := r.Get(ctx, types.NamespacedName{Namespace: ns, Name: r.SettingsConfigMap}, &cm)
	if client.IgnoreNotFound(err) != nil {
		return nil, err
	}
	if err == nil {
		for i := range list.Items {
			if metav1.IsControlledBy(&cm, &list.Items[i]) {
				return &list.Items[i], nil
			}
		}
	}
	var live []*worldv1.World
	for i := range list.Items {
		if list.Items[i].DeletionTimestamp.IsZero() {
			live = append(live, &list.Items[i])
		}
	}
	if len(live) == 0 {
		return nil, nil
	}
	sort.Slice(live, func(i, j int) bool {
		a, b := live[i], live[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Name < b.Name
	})
	return live[0], nil
}

// applySettings writes the settings ConfigMap, controlled by w. It adopts
// one the operator labelled whose World is gone, and refuses any other.
// It reports whether the data changed.
func (r *WorldReconciler) applySettings(ctx context.Context, w *worldv1.World, data map[string]string) (bool, error) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: r.SettingsConfigMap, Namespace: w.Namespace}}
	err := r.Get(ctx, client.ObjectKeyFromObject(cm), cm)
	if apierrors.IsNotFound(err) {
		cm.Labels = map[string]string{ManagedByLabel: ManagedBy}
		cm.Data = data
		if err := controllerutil.SetControllerReference(w, cm, r.Scheme()); err != nil {
			return false, err
		}
		return true, r.Create(ctx, cm)
	} else if err != nil {
		return false, err
	}
	if !metav1.IsControlledBy(cm, w) {
		if cm.Labels[ManagedByLabel] != ManagedBy {
			return false, fmt.Errorf("ConfigMap %s: %w", cm.Name, errNotOurs)
		}
		// The owner() pass found no live World controlling it: the
		// reference is to a World that is gone.
		refs := cm.OwnerReferences[:0]
		for _, ref := range cm.OwnerReferences {
			if ref.Controller == nil || !*ref.Controller {
				refs = append(refs, ref)
			}
		}
		cm.OwnerReferences = refs
		if err := controllerutil.SetControllerReference(w, cm, r.Scheme()); err != nil {
			return false, err
		}
	} else if equalData(cm.Data, data) {
		return false, nil
	}
	cm.Data = data
	return true, r.Update(ctx, cm)
}

// finalize lets a deleted World go, undoing only what it owns: its own
// settings ConfigMap, and the Deployments still rolled to its settings.
// Another World's settings, or a ConfigMap someone else wrote under the
// same name, are left alone.
func (r *WorldReconciler) finalize(ctx context.Context, w *worldv1.World) error {
	if !controllerutil.ContainsFinalizer(w, Finalizer) {
		return nil
	}
	var cm corev1.ConfigMap
	err := r.Get(ctx, types.NamespacedName{Namespace: w.Namespace, Name: r.SettingsConfigMap}, &cm)
	if client.IgnoreNotFound(err) != nil {
		return err
	}
	removed := false
	if err == nil && metav1.IsControlledBy(&cm, w) {
		uid := cm.UID
		if err := r.Delete(ctx, &cm, client.Preconditions{UID: &uid}); client.IgnoreNotFound(err) != nil {
			return err
		}
		removed = true
	}
	rolled, err := r.rollBack(ctx, w.Namespace, w.Status.SettingsHash)
	if err != nil {
		return err
	}
	if removed || len(rolled) > 0 {
		r.event(w, corev1.EventTypeNormal, "SettingsRemoved", "Finalize",
			"settings removed; Deployments back on the chart's: %v", rolled)
	}
	controllerutil.RemoveFinalizer(w, Finalizer)
	return r.Update(ctx, w)
}

// siblings wakes the other Worlds of a namespace when one comes or goes:
// the oldest waiting World takes over once the owner is gone, without any
// periodic requeue of the Worlds in Conflict.
func (r *WorldReconciler) siblings(ctx context.Context, o client.Object) []reconcile.Request {
	var list worldv1.WorldList
	if err := r.List(ctx, &list, client.InNamespace(o.GetNamespace())); err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, w := range list.Items {
		if w.Name != o.GetName() {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&w)})
		}
	}
	return out
}

func equalData(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}

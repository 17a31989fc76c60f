// Package controller reconciles World resources: it writes the World's
// settings into the ConfigMap the bulletin and governance Deployments read
// (env-from, after the chart's own), rolls those Deployments when the
// settings change, and reports the world the public bulletin shows. One
// World per namespace is applied; any other is reported in Conflict.
package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	worldv1 "sharedworld.dev/operator/api/v1alpha1"
)

// Names the operator writes.
const (
	Finalizer = "sharedworld.dev/settings"
	// SettingsAnnotation on a Deployment's pod template is the hash of the
	// settings its pods started with; changing it rolls the Deployment.
	SettingsAnnotation = "sharedworld.dev/world-settings"
	// NoSettings is the annotation once the World is gone.
	NoSettings = "none"

	ConditionReady    = "Ready"
	ConditionDegraded = "Degraded"
	// ReasonConflict: another World owns the namespace.
	ReasonConflict = "Conflict"
)

// Clock is the reconciler's time (conditions' transition times, the last read).
type Clock interface{ Now() time.Time }

// RealClock is the wall clock.
type RealClock struct{}

// Now is time.Now.
func (RealClock) Now() time.Time { return time.Now() }

// WorldReconciler applies Worlds to the world of their namespace.
type WorldReconciler struct {
	client.Client
	Clock    Clock
	Bulletin Bulletin
	// Recorder publishes the Events `kubectl describe world` shows.
	Recorder events.EventRecorder
	// SettingsConfigMap is the ConfigMap the Deployments env-from.
	SettingsConfigMap string
	// Deployments are rolled when the settings change (bulletin, governance).
	Deployments []string
	// Resync is how often the status is refreshed from the bulletin.
	Resync time.Duration
}

// +kubebuilder:rbac:groups=sharedworld.dev,resources=worlds,verbs=get;list;watch;update;patch;delete
// +kubebuilder:rbac:groups=sharedworld.dev,resources=worlds/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=sharedworld.dev,resources=worlds/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch;delete

// Reconcile brings one World's namespace to its spec and its status to the world.
func (r *WorldReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var w worldv1.World
	if err := r.Get(ctx, req.NamespacedName, &w); apierrors.IsNotFound(err) {
		forget(req.Namespace, req.Name)
		return ctrl.Result{}, nil
	} else if err != nil {
		return ctrl.Result{}, err
	}
	if !w.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.finalize(ctx, &w)
	}
	owner, err := r.owner(ctx, w.Namespace)
	if err != nil {
		return ctrl.Result{}, err
	}
	if owner != nil && owner.UID != w.UID {
		return ctrl.Result{}, r.conflict(ctx, &w, owner)
	}
	if controllerutil.AddFinalizer(&w, Finalizer) {
		if err := r.Update(ctx, &w); err != nil {
			return ctrl.Result{}, err
		}
	}

	before := w.Status.DeepCopy()
	st := &w.Status
	st.ObservedGeneration = w.Generation
	data := Settings(w.Spec)
	hash := Hash(data)
	var problems []string
	changed, err := r.applySettings(ctx, &w, data)
	if errors.Is(err, errNotOurs) {
		problems = append(problems, err.Error()+"; delete it or rename it to let this World apply")
	} else if err != nil {
		return ctrl.Result{}, err
	}
	if err == nil {
		missing, rolled, err := r.roll(ctx, w.Namespace, hash)
		if err != nil {
			return ctrl.Result{}, err
		}
		if len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("Deployments not found: %v", missing))
		} else {
			st.SettingsHash = hash
		}
		if changed || len(rolled) > 0 {
			r.event(&w, corev1.EventTypeNormal, "SettingsApplied", "Apply", "settings %s applied; rolled %v", hash, rolled)
		}
	}
	snap, err := r.Bulletin.Read(ctx)
	if err != nil {
		problems = append(problems, "the bulletin does not answer: "+err.Error())
	} else {
		now := metav1.NewTime(r.Clock.Now())
		st.Phase, st.Population, st.PlotsClaimed = snap.Phase, snap.Population, snap.PlotsClaimed
		st.OpenTickets, st.ActiveProposals, st.LastReadTime = snap.OpenTickets, snap.ActiveProposals, &now
		observe(w.Namespace+"/"+w.Name, snap)
		observeRead(w.Namespace, w.Name, now.Time)
	}
	r.setConditions(&w, problems)
	if err := r.writeStatus(ctx, &w, before); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: r.Resync}, nil
}

// conflict reports a World that is not the namespace's owner. It is never
// applied and not requeued: the owner's deletion wakes it (siblings).
func (r *WorldReconciler) conflict(ctx context.Context, w, owner *worldv1.World) error {
	before := w.Status.DeepCopy()
	w.Status.ObservedGeneration = w.Generation
	w.Status.SettingsHash = ""
	msg := fmt.Sprintf("World %s owns namespace %s; one World per namespace, this one is not applied", owner.Name, w.Namespace)
	now := metav1.NewTime(r.Clock.Now())
	meta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{Type: ConditionReady, Status: metav1.ConditionFalse,
		Reason: ReasonConflict, Message: msg, ObservedGeneration: w.Generation, LastTransitionTime: now})
	meta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{Type: ConditionDegraded, Status: metav1.ConditionTrue,
		Reason: ReasonConflict, Message: msg, ObservedGeneration: w.Generation, LastTransitionTime: now})
	return r.writeStatus(ctx, w, before)
}

// writeStatus writes the status if it changed, keeps the Ready gauge, and
// records an Event when Ready changes its status or reason.
func (r *WorldReconciler) writeStatus(ctx context.Context, w *worldv1.World, before *worldv1.WorldStatus) error {
	ready := meta.FindStatusCondition(w.Status.Conditions, ConditionReady)
	observeReady(w.Namespace, w.Name, ready != nil && ready.Status == metav1.ConditionTrue)
	if equality.Semantic.DeepEqual(before, &w.Status) {
		return nil
	}
	if err := r.Status().Update(ctx, w); err != nil {
		return err
	}
	if was := meta.FindStatusCondition(before.Conditions, ConditionReady); ready != nil &&
		(was == nil || was.Status != ready.Status || was.Reason != ready.Reason) {
		kind := corev1.EventTypeNormal
		if ready.Status != metav1.ConditionTrue {
			kind = corev1.EventTypeWarning
		}
		r.event(w, kind, ready.Reason, "Reconcile", "%s", ready.Message)
	}
	logf.FromContext(ctx).Info("world status written", "population", w.Status.Population, "ready", ready.Status, "reason", ready.Reason)
	return nil
}

func (r *WorldReconciler) setConditions(w *worldv1.World, problems []string) {
	now := metav1.NewTime(r.Clock.Now())
	ready := metav1.Condition{Type: ConditionReady, Status: metav1.ConditionTrue, Reason: "Applied",
		Message: "settings applied; the bulletin answers", ObservedGeneration: w.Generation, LastTransitionTime: now}
	degraded := metav1.Condition{Type: ConditionDegraded, Status: metav1.ConditionFalse, Reason: "AsExpected",
		Message: "", ObservedGeneration: w.Generation, LastTransitionTime: now}
	if len(problems) > 0 {
		msg := fmt.Sprint(problems)
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, "Degraded", msg
		degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, "WorldUnhealthy", msg
	}
	meta.SetStatusCondition(&w.Status.Conditions, ready)
	meta.SetStatusCondition(&w.Status.Conditions, degraded)
}

// roll sets the settings hash on each Deployment's pod template (a new
// hash starts a rollout, so the pods read the new settings), returning the
// Deployments that do not exist and those it rolled.
func (r *WorldReconciler) roll(ctx context.Context, ns, hash string) (missing, rolled []string, err error) {
	for _, name := range r.Deployments {
		var d appsv1.Deployment
		if err := r.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &d); apierrors.IsNotFound(err) {
			missing = append(missing, name)
			continue
		} else if err != nil {
			return nil, nil, err
		}
		if d.Spec.Template.Annotations[SettingsAnnotation] == hash {
			continue
		}
		if err := r.annotate(ctx, &d, hash); err != nil {
			return nil, nil, err
		}
		rolled = append(rolled, name)
	}
	return missing, rolled, nil
}

// rollBack returns to the chart's settings the Deployments still rolled
// to hash (the deleted World's): one rolled to other settings is not its.
func (r *WorldReconciler) rollBack(ctx context.Context, ns, hash string) ([]string, error) {
	var rolled []string
	if hash == "" {
		return nil, nil
	}
	for _, name := range r.Deployments {
		var d appsv1.Deployment
		if err := r.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &d); apierrors.IsNotFound(err) {
			continue
		} else if err != nil {
			return nil, err
		}
		if d.Spec.Template.Annotations[SettingsAnnotation] != hash {
			continue
		}
		if err := r.annotate(ctx, &d, NoSettings); err != nil {
			return nil, err
		}
		rolled = append(rolled, name)
	}
	return rolled, nil
}

func (r *WorldReconciler) annotate(ctx context.Context, d *appsv1.Deployment, hash string) error {
	patch := client.MergeFrom(d.DeepCopy())
	if d.Spec.Template.Annotations == nil {
		d.Spec.Template.Annotations = map[string]string{}
	}
	d.Spec.Template.Annotations[SettingsAnnotation] = hash
	return r.Patch(ctx, d, patch)
}

func (r *WorldReconciler) event(w *worldv1.World, kind, reason, action, note string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(w, nil, kind, reason, action, note, args...)
	}
}

// specOrLifecycle passes the changes a World's reconcile acts on: spec
// (generation), deletion, finalizers. Its own status writes are left out,
// or every write of the last read time would start another pass at once.
var specOrLifecycle = predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
	o, n := e.ObjectOld, e.ObjectNew
	return o.GetGeneration() != n.GetGeneration() || o.GetDeletionTimestamp().IsZero() != n.GetDeletionTimestamp().IsZero() ||
		len(o.GetFinalizers()) != len(n.GetFinalizers())
}}

// SetupWithManager watches Worlds and the ConfigMaps they own.
func (r *WorldReconciler) SetupWithManager(mgr ctrl.Manager) error { return r.setup(mgr, r) }

// setup lets a test count the passes the watches start (rec wraps r).
func (r *WorldReconciler) setup(mgr ctrl.Manager, rec reconcile.Reconciler) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&worldv1.World{}, builder.WithPredicates(specOrLifecycle)).
		Owns(&corev1.ConfigMap{}).
		Watches(&worldv1.World{}, handler.EnqueueRequestsFromMapFunc(r.siblings), builder.WithPredicates(predicate.Funcs{
			UpdateFunc: func(e event.UpdateEvent) bool {
				return e.ObjectOld.GetDeletionTimestamp().IsZero() != e.ObjectNew.GetDeletionTimestamp().IsZero()
			}})).
		Named("world").
		Complete(rec)
}

// Package controller reconciles World resources: it writes the World's
// settings into the ConfigMap the bulletin and governance Deployments read
// (env-from, after the chart's own), rolls those Deployments when the
// settings change, and reports the world the public bulletin shows.
package controller

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

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
)

// Clock is the reconciler's time (conditions' transition times).
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
	// SettingsConfigMap is the ConfigMap the Deployments env-from.
	SettingsConfigMap string
	// Deployments are rolled when the settings change (bulletin, governance).
	Deployments []string
	// Resync is how often the status is refreshed from the bulletin.
	Resync time.Duration
}

// +kubebuilder:rbac:groups=sharedworld.dev,resources=worlds,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=sharedworld.dev,resources=worlds/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=sharedworld.dev,resources=worlds/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch;delete

// Reconcile brings one World's namespace to its spec and its status to the world.
func (r *WorldReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)
	var w worldv1.World
	if err := r.Get(ctx, req.NamespacedName, &w); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !w.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.finalize(ctx, &w)
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
	if err := r.applySettings(ctx, &w, data); err != nil {
		return ctrl.Result{}, err
	}
	missing, err := r.roll(ctx, w.Namespace, hash)
	if err != nil {
		return ctrl.Result{}, err
	}
	if len(missing) > 0 {
		problems = append(problems, fmt.Sprintf("Deployments not found: %v", missing))
	} else {
		st.SettingsHash = hash
	}
	snap, err := r.Bulletin.Read(ctx)
	if err != nil {
		problems = append(problems, "the bulletin does not answer: "+err.Error())
	} else {
		st.Phase, st.Population, st.PlotsClaimed = snap.Phase, snap.Population, snap.PlotsClaimed
		st.OpenTickets, st.ActiveProposals = snap.OpenTickets, snap.ActiveProposals
		observe(w.Namespace+"/"+w.Name, snap)
	}
	r.setConditions(&w, problems)

	if !equality.Semantic.DeepEqual(before, st) {
		if err := r.Status().Update(ctx, &w); err != nil {
			return ctrl.Result{}, err
		}
		log.Info("world status written", "population", st.Population, "ready", len(problems) == 0)
	}
	return ctrl.Result{RequeueAfter: r.Resync}, nil
}

func (r *WorldReconciler) setConditions(w *worldv1.World, problems []string) {
	now := metav1.NewTime(r.Clock.Now())
	ready := metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Applied",
		Message: "settings applied; the bulletin answers", ObservedGeneration: w.Generation, LastTransitionTime: now}
	degraded := metav1.Condition{Type: "Degraded", Status: metav1.ConditionFalse, Reason: "AsExpected",
		Message: "", ObservedGeneration: w.Generation, LastTransitionTime: now}
	if len(problems) > 0 {
		msg := fmt.Sprint(problems)
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, "Degraded", msg
		degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, "WorldUnhealthy", msg
	}
	meta.SetStatusCondition(&w.Status.Conditions, ready)
	meta.SetStatusCondition(&w.Status.Conditions, degraded)
}

// applySettings writes the settings ConfigMap, owned by the World.
func (r *WorldReconciler) applySettings(ctx context.Context, w *worldv1.World, data map[string]string) error {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: r.SettingsConfigMap, Namespace: w.Namespace}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		if cm.Labels == nil {
			cm.Labels = map[string]string{}
		}
		cm.Labels["app.kubernetes.io/managed-by"] = "sharedworld-operator"
		cm.Data = data
		return controllerutil.SetControllerReference(w, cm, r.Scheme())
	})
	return err
}

// roll sets the settings hash on each Deployment's pod template (a new
// hash starts a rollout, so the pods read the new settings), returning the
// Deployments that do not exist.
func (r *WorldReconciler) roll(ctx context.Context, ns, hash string) ([]string, error) {
	var missing []string
	for _, name := range r.Deployments {
		var d appsv1.Deployment
		if err := r.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &d); apierrors.IsNotFound(err) {
			missing = append(missing, name)
			continue
		} else if err != nil {
			return nil, err
		}
		if d.Spec.Template.Annotations[SettingsAnnotation] == hash {
			continue
		}
		patch := client.MergeFrom(d.DeepCopy())
		if d.Spec.Template.Annotations == nil {
			d.Spec.Template.Annotations = map[string]string{}
		}
		d.Spec.Template.Annotations[SettingsAnnotation] = hash
		if err := r.Patch(ctx, &d, patch); err != nil {
			return nil, err
		}
	}
	return missing, nil
}

// finalize returns the world to the chart's settings: the ConfigMap goes,
// the Deployments roll once more without it.
func (r *WorldReconciler) finalize(ctx context.Context, w *worldv1.World) error {
	if !controllerutil.ContainsFinalizer(w, Finalizer) {
		return nil
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: r.SettingsConfigMap, Namespace: w.Namespace}}
	if err := r.Delete(ctx, cm); client.IgnoreNotFound(err) != nil {
		return err
	}
	if _, err := r.roll(ctx, w.Namespace, NoSettings); err != nil {
		return err
	}
	forget(w.Namespace + "/" + w.Name)
	controllerutil.RemoveFinalizer(w, Finalizer)
	return r.Update(ctx, w)
}

// SetupWithManager watches Worlds and the ConfigMaps they own.
func (r *WorldReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&worldv1.World{}).
		Owns(&corev1.ConfigMap{}).
		Named("world").
		Complete(r)
}

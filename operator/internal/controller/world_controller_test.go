package controller

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	worldv1 "sharedworld.dev/operator/api/v1alpha1"
)

type fixedClock struct{ t time.Time }

func (c *fixedClock) Now() time.Time { return c.t }

type fakeBulletin struct {
	snap Snapshot
	err  error
}

func (b *fakeBulletin) Read(context.Context) (Snapshot, error) { return b.snap, b.err }

type fixture struct {
	r            *WorldReconciler
	c            client.Client
	clock        *fixedClock
	bulletin     *fakeBulletin
	recorder     *events.FakeRecorder
	statusWrites int
}

var key = types.NamespacedName{Namespace: "world", Name: "w"}

// newFixture holds the World w (created at the clock's time) and objs.
func newFixture(t *testing.T, objs ...client.Object) *fixture {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := worldv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	f := &fixture{clock: &fixedClock{time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)},
		bulletin: &fakeBulletin{snap: Snapshot{Phase: "Founding", Population: 7, PlotsClaimed: 3, OpenTickets: 2, ActiveProposals: 1}}}
	world := &worldv1.World{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace, Generation: 1, UID: "uid-w",
		CreationTimestamp: metav1.NewTime(f.clock.t)},
		Spec: worldv1.WorldSpec{Name: "Test World", Note: "hello", ElectionTrigger: 12}}
	f.c = fake.NewClientBuilder().WithScheme(scheme).WithStatusSubresource(&worldv1.World{}).
		WithObjects(append(objs, world)...).
		WithInterceptorFuncs(interceptor.Funcs{SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			f.statusWrites++
			return c.SubResource(sub).Update(ctx, obj, opts...)
		}}).Build()
	f.recorder = events.NewFakeRecorder(100)
	f.r = &WorldReconciler{Client: f.c, Clock: f.clock, Bulletin: f.bulletin, Recorder: f.recorder, SettingsConfigMap: "world-operator",
		Deployments: []string{"bulletin", "governance"}, Resync: time.Minute}
	return f
}

// events drains the Events recorded so far.
func (f *fixture) events() []string {
	var out []string
	for {
		select {
		case e := <-f.recorder.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func deployment(name string) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: key.Namespace}}
}

func (f *fixture) reconcile(t *testing.T) *worldv1.World {
	t.Helper()
	res, err := f.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key})
	if err != nil {
		t.Fatal(err)
	}
	if res.RequeueAfter != time.Minute {
		t.Errorf("requeue after %s, want the resync", res.RequeueAfter)
	}
	var w worldv1.World
	if err := f.c.Get(context.Background(), key, &w); err != nil {
		t.Fatal(err)
	}
	return &w
}

func (f *fixture) annotation(t *testing.T, name string) string {
	t.Helper()
	var d appsv1.Deployment
	if err := f.c.Get(context.Background(), types.NamespacedName{Namespace: key.Namespace, Name: name}, &d); err != nil {
		t.Fatal(err)
	}
	return d.Spec.Template.Annotations[SettingsAnnotation]
}

// A World's settings reach the ConfigMap the bulletin reads, its
// Deployments roll to them, and the status shows the bulletin's world,
// Ready, at the generation it saw and the clock's time, with the time of
// the read; a second pass with nothing new writes nothing, and an Event
// tells what was applied.
func TestReconcileAppliesAndReports(t *testing.T) {
	f := newFixture(t, deployment("bulletin"), deployment("governance"))
	w := f.reconcile(t)

	var cm corev1.ConfigMap
	if err := f.c.Get(context.Background(), types.NamespacedName{Namespace: "world", Name: "world-operator"}, &cm); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"WORLD_NAME": "Test World", "WORLD_NOTE": "hello", "WORLD_ELECTION_TRIGGER": "12"}
	if len(cm.Data) != len(want) || cm.Data["WORLD_NAME"] != want["WORLD_NAME"] || cm.Data["WORLD_NOTE"] != "hello" || cm.Data["WORLD_ELECTION_TRIGGER"] != "12" {
		t.Errorf("settings %v, want %v", cm.Data, want)
	}
	if len(cm.OwnerReferences) != 1 || cm.OwnerReferences[0].Name != "w" {
		t.Errorf("owner %v", cm.OwnerReferences)
	}
	hash := Hash(want)
	for _, d := range []string{"bulletin", "governance"} {
		if got := f.annotation(t, d); got != hash {
			t.Errorf("%s rolled to %q, want %q", d, got, hash)
		}
	}
	st := w.Status
	if st.Population != 7 || st.PlotsClaimed != 3 || st.OpenTickets != 2 || st.ActiveProposals != 1 || st.Phase != "Founding" ||
		st.ObservedGeneration != 1 || st.SettingsHash != hash {
		t.Errorf("status %+v", st)
	}
	ready := meta.FindStatusCondition(st.Conditions, "Ready")
	if ready == nil || ready.Status != metav1.ConditionTrue || ready.ObservedGeneration != 1 || !ready.LastTransitionTime.Time.Equal(f.clock.t) {
		t.Errorf("Ready %+v", ready)
	}
	if d := meta.FindStatusCondition(st.Conditions, "Degraded"); d == nil || d.Status != metav1.ConditionFalse {
		t.Errorf("Degraded %+v", d)
	}
	if st.LastReadTime == nil || !st.LastReadTime.Time.Equal(f.clock.t) {
		t.Errorf("last read %v, want %s", st.LastReadTime, f.clock.t)
	}
	if got := testutil.ToFloat64(worldReady.WithLabelValues("world", "w")); got != 1 {
		t.Errorf("sharedworld_operator_world_ready %v, want 1", got)
	}
	if got := testutil.ToFloat64(worldLastRead.WithLabelValues("world", "w")); got != float64(f.clock.t.Unix()) {
		t.Errorf("sharedworld_operator_world_last_read_timestamp_seconds %v, want %d", got, f.clock.t.Unix())
	}
	if f.statusWrites != 1 {
		t.Errorf("%d status writes, want 1", f.statusWrites)
	}
	if ev := f.events(); len(ev) != 2 || !contains(ev[0], "Normal SettingsApplied settings "+hash) || !contains(ev[1], "Normal Applied") {
		t.Errorf("events %q, want SettingsApplied then Applied", ev)
	}

	f.reconcile(t)
	if f.statusWrites != 1 || len(f.events()) != 0 {
		t.Errorf("nothing changed but the status was written again (%d writes) or an Event recorded", f.statusWrites)
	}
	f.clock.t = f.clock.t.Add(time.Hour)
	f.bulletin.snap.Population = 8
	w = f.reconcile(t)
	if f.statusWrites != 2 || w.Status.Population != 8 || !w.Status.LastReadTime.Time.Equal(f.clock.t) {
		t.Errorf("population 8 an hour later: %d writes, status %+v", f.statusWrites, w.Status)
	}
	if ev := f.events(); len(ev) != 0 {
		t.Errorf("a new population is no Event: %q", ev)
	}
	if r := meta.FindStatusCondition(w.Status.Conditions, "Ready"); !r.LastTransitionTime.Time.Equal(f.clock.t.Add(-time.Hour)) {
		t.Errorf("Ready moved its transition time without a transition: %s", r.LastTransitionTime)
	}
}

// A bulletin that does not answer and a missing Deployment degrade the
// World: a Warning Event, the Ready gauge at 0; the last read time and the
// counts it last saw stay.
func TestReconcileDegrades(t *testing.T) {
	f := newFixture(t, deployment("bulletin"))
	f.bulletin.err = errors.New("connection refused")
	w := f.reconcile(t)
	ready := meta.FindStatusCondition(w.Status.Conditions, "Ready")
	degraded := meta.FindStatusCondition(w.Status.Conditions, "Degraded")
	if ready.Status != metav1.ConditionFalse || degraded.Status != metav1.ConditionTrue {
		t.Fatalf("Ready %+v Degraded %+v", ready, degraded)
	}
	for _, part := range []string{"governance", "connection refused"} {
		if !contains(degraded.Message, part) {
			t.Errorf("Degraded message %q lacks %q", degraded.Message, part)
		}
	}
	if w.Status.SettingsHash != "" {
		t.Errorf("settings hash %q with a Deployment missing", w.Status.SettingsHash)
	}
	if got := testutil.ToFloat64(worldReady.WithLabelValues("world", "w")); got != 0 {
		t.Errorf("sharedworld_operator_world_ready %v, want 0", got)
	}
	if ev := f.events(); len(ev) == 0 || !contains(ev[len(ev)-1], "Warning Degraded") || !contains(ev[len(ev)-1], "connection refused") {
		t.Errorf("events %q, want a Warning naming the bulletin's error", ev)
	}

	f.bulletin.err = nil
	f.reconcile(t)
	read := f.clock.t
	f.clock.t = f.clock.t.Add(10 * time.Minute)
	f.bulletin.err = errors.New("timeout")
	w = f.reconcile(t)
	if w.Status.LastReadTime == nil || !w.Status.LastReadTime.Time.Equal(read) || w.Status.Population != 7 {
		t.Errorf("after a failed read: last read %v (want %s), population %d", w.Status.LastReadTime, read, w.Status.Population)
	}
}

// Deleting the World removes its settings and rolls the Deployments back
// to the chart's, then lets the World go and drops its series.
func TestDeleteReturnsToTheChart(t *testing.T) {
	f := newFixture(t, deployment("bulletin"), deployment("governance"))
	w := f.reconcile(t)
	if len(w.Finalizers) != 1 {
		t.Fatalf("finalizers %v", w.Finalizers)
	}
	if err := f.c.Delete(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	if _, err := f.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key}); err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := f.c.Get(context.Background(), types.NamespacedName{Namespace: "world", Name: "world-operator"}, &cm); !apierrors.IsNotFound(err) {
		t.Errorf("settings ConfigMap after delete: %v", err)
	}
	if got := f.annotation(t, "bulletin"); got != NoSettings {
		t.Errorf("bulletin annotation %q after delete", got)
	}
	if err := f.c.Get(context.Background(), key, &worldv1.World{}); !apierrors.IsNotFound(err) {
		t.Errorf("World after delete: %v", err)
	}
	if _, err := f.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key}); err != nil {
		t.Fatal(err)
	}
	// DeleteLabelValues reports whether the series was still there.
	if worldReady.DeleteLabelValues("world", "w") || worldLastRead.DeleteLabelValues("world", "w") {
		t.Error("the World's series outlive it")
	}
}

func contains(s, part string) bool {
	for i := 0; i+len(part) <= len(s); i++ {
		if s[i:i+len(part)] == part {
			return true
		}
	}
	return false
}

//go:build k8s

package controller

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	worldv1 "sharedworld.dev/operator/api/v1alpha1"
)

// The operator against a real API server (envtest: etcd + kube-apiserver
// from $KUBEBUILDER_ASSETS) with the committed CRD: the API server
// validates and defaults Worlds, the reconciler applies one, reports it
// (kubectl's printer columns show it), applies a change, and lets it go.
func TestOperatorOnAPIServer(t *testing.T) {
	env, cfg, c := startEnv(t)
	ctx := context.Background()
	ns := "world"
	must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	for _, name := range []string{"bulletin", "governance"} {
		must(t, c.Create(ctx, testDeployment(ns, name)))
	}

	// The public bulletin, as a test server whose population we move.
	var pop atomic.Int64
	pop.Store(4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/world/bulletin" {
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": true,
			"world":      map[string]any{"population": pop.Load(), "plots_claimed": 2, "phase": "Founding"},
			"feedback":   map[string]any{"open_tickets": 5},
			"governance": map[string]any{"active_proposals": []any{map[string]any{"proposal_id": "p1"}}}})
	}))
	t.Cleanup(srv.Close)

	clock := &fixedClock{time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	startOperator(t, cfg, ns, clock, HTTPBulletin{URL: srv.URL}, nil)

	// The API server refuses what the markers forbid and defaults the trigger.
	bad := &worldv1.World{ObjectMeta: metav1.ObjectMeta{Name: "bad", Namespace: ns}, Spec: worldv1.WorldSpec{Name: "x", Phase: "Anarchy"}}
	if err := c.Create(ctx, bad); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.phase") {
		t.Fatalf("a World with phase Anarchy: %v", err)
	}
	w := &worldv1.World{ObjectMeta: metav1.ObjectMeta{Name: "shared", Namespace: ns},
		Spec: worldv1.WorldSpec{Name: "Shared World", Founded: "2026-01-15", Note: "first"}}
	must(t, c.Create(ctx, w))
	if w.Spec.ElectionTrigger != 10 {
		t.Errorf("electionTrigger defaulted to %d, want 10", w.Spec.ElectionTrigger)
	}
	key := types.NamespacedName{Namespace: ns, Name: "shared"}

	eventually(t, "the World reports the bulletin and is Ready", func() (bool, any) {
		var got worldv1.World
		if err := c.Get(ctx, key, &got); err != nil {
			return false, err
		}
		ready := meta.FindStatusCondition(got.Status.Conditions, "Ready")
		return got.Status.Population == 4 && got.Status.PlotsClaimed == 2 && got.Status.OpenTickets == 5 &&
			got.Status.ActiveProposals == 1 && got.Status.ObservedGeneration == got.Generation &&
			got.Status.LastReadTime != nil && got.Status.LastReadTime.Time.Equal(clock.t) &&
			ready != nil && ready.Status == metav1.ConditionTrue && ready.ObservedGeneration == got.Generation, got.Status
	})
	settings := func() map[string]string {
		var cm corev1.ConfigMap
		if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "world-operator"}, &cm); err != nil {
			return nil
		}
		return cm.Data
	}
	if s := settings(); s["WORLD_NOTE"] != "first" || s["WORLD_FOUNDED"] != "2026-01-15" || s["WORLD_ELECTION_TRIGGER"] != "10" {
		t.Errorf("settings %v", s)
	}
	first := annotationOf(t, c, ns, "bulletin")
	if first == "" {
		t.Fatal("the bulletin Deployment was not rolled to the settings")
	}

	// kubectl get worlds shows the world at a glance.
	user, err := env.AddUser(envtest.User{Name: "sre", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kubectl, err := user.Kubectl()
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := kubectl.Run("get", "worlds", "-n", ns)
	if err != nil {
		raw, _ := io.ReadAll(stderr)
		t.Fatalf("kubectl get worlds: %v %s", err, raw)
	}
	table, _ := io.ReadAll(stdout)
	lines := strings.Split(strings.TrimSpace(string(table)), "\n")
	if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "NAME WORLD PHASE POPULATION PLOTS OPEN TICKETS READY LAST READ AGE" ||
		!strings.HasPrefix(strings.Join(strings.Fields(lines[1]), " "), "shared Shared World Founding 4 2 5 True") {
		t.Errorf("kubectl get worlds:\n%s", table)
	}

	// A change is applied: new settings, the Deployments roll, the status follows.
	var got worldv1.World
	must(t, c.Get(ctx, key, &got))
	got.Spec.Note, got.Spec.Phase = "second", "Constitutional Convention"
	must(t, c.Update(ctx, &got))
	pop.Store(11)
	eventually(t, "the change is applied", func() (bool, any) {
		var now worldv1.World
		if err := c.Get(ctx, key, &now); err != nil {
			return false, err
		}
		s := settings()
		return s["WORLD_NOTE"] == "second" && s["WORLD_PHASE"] == "Constitutional Convention" &&
			annotationOf(t, c, ns, "bulletin") != first && annotationOf(t, c, ns, "governance") == annotationOf(t, c, ns, "bulletin") &&
			now.Status.ObservedGeneration == now.Generation && now.Status.Population == 11, s
	})

	// Deleted: the settings go, the Deployments return to the chart's, the World goes.
	must(t, c.Delete(ctx, &got))
	eventually(t, "the World is gone with its settings", func() (bool, any) {
		err := c.Get(ctx, key, &worldv1.World{})
		return apierrors.IsNotFound(err) && settings() == nil && annotationOf(t, c, ns, "bulletin") == NoSettings, err
	})
}

// startEnv starts etcd and kube-apiserver with the committed CRD.
func startEnv(t *testing.T) (*envtest.Environment, *rest.Config, client.Client) {
	t.Helper()
	env := &envtest.Environment{CRDDirectoryPaths: []string{filepath.Join("..", "..", "config", "crd", "bases")}, ErrorIfCRDPathMissing: true}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("start the API server (make test-k8s sets KUBEBUILDER_ASSETS): %v", err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	c, err := client.New(cfg, client.Options{Scheme: testScheme()})
	if err != nil {
		t.Fatal(err)
	}
	return env, cfg, c
}

func testScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = worldv1.AddToScheme(scheme)
	return scheme
}

// startOperator runs the reconciler as the operator does: a manager whose
// cache holds ns alone, Events through the manager's recorder. wrap, when
// set, stands between the controller and the reconciler.
func startOperator(t *testing.T, cfg *rest.Config, ns string, clock Clock, b Bulletin, wrap func(reconcile.Reconciler) reconcile.Reconciler) *WorldReconciler {
	t.Helper()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: testScheme(), Metrics: metricsserver.Options{BindAddress: "0"},
		Cache: cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		// Each test starts its own operator in this one process.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	if err != nil {
		t.Fatal(err)
	}
	r := &WorldReconciler{Client: mgr.GetClient(), Clock: clock, Bulletin: b, Recorder: mgr.GetEventRecorder("sharedworld-operator"),
		SettingsConfigMap: "world-operator", Deployments: []string{"bulletin", "governance"}, Resync: 500 * time.Millisecond}
	if wrap == nil {
		must(t, r.SetupWithManager(mgr))
	} else {
		must(t, r.setup(mgr, wrap(r)))
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return r
}

func testDeployment(ns, name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: "sharedworld/" + name + ":test"}}}}}}
}

func annotationOf(t *testing.T, c client.Client, ns, name string) string {
	var d appsv1.Deployment
	if err := c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, &d); err != nil {
		t.Fatal(err)
	}
	return d.Spec.Template.Annotations[SettingsAnnotation]
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func eventually(t *testing.T, what string, cond func() (bool, any)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last any
	for time.Now().Before(deadline) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: not within 30s; last: %+v", what, last)
}

//go:build k8s

package main

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Two releases in two namespaces, each operator with the lease the chart
// gives it (its namespace, <fullname>-operator): both are elected, each
// holds its own Lease, and neither waits for the other. Run outside a
// pod, as here, the lease namespace must come from the flags.
func TestEachReleaseElectsItsOwnLeader(t *testing.T) {
	env := &envtest.Environment{}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("start the API server (make test-k8s sets KUBEBUILDER_ASSETS): %v", err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	c, err := client.New(cfg, client.Options{Scheme: newScheme()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	releases := map[string]string{"team-a": "world-shared-world-operator", "team-b": "world-shared-world-operator"}
	var elected []<-chan struct{}
	for ns, id := range releases {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
		opts := managerOptions(config{namespace: ns, leader: true, leaseNamespace: ns, leaseID: id, metricsAddr: "0", probeAddr: "0"}, newScheme())
		opts.LeaderElectionReleaseOnCancel = false
		mgr, err := ctrl.NewManager(cfg, opts)
		if err != nil {
			t.Fatalf("the manager of %s: %v", ns, err)
		}
		done := make(chan struct{})
		go func() { defer close(done); _ = mgr.Start(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
		elected = append(elected, mgr.Elected())
	}
	deadline := time.After(30 * time.Second)
	for i, ch := range elected {
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("operator %d of %d not elected within 30s", i+1, len(elected))
		}
	}
	holders := map[string]bool{}
	for ns, id := range releases {
		var l coordinationv1.Lease
		if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: id}, &l); err != nil {
			t.Fatalf("lease %s/%s: %v", ns, id, err)
		}
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
			t.Errorf("lease %s/%s has no holder", ns, id)
			continue
		}
		holders[*l.Spec.HolderIdentity] = true
	}
	if len(holders) != 2 {
		t.Errorf("%d holders for the two releases' leases", len(holders))
	}
}

// Without -leader-election-namespace the lease is the operator's namespace's.
func TestLeaseNamespaceDefaultsToTheOperators(t *testing.T) {
	opts := managerOptions(config{namespace: "team-a", leader: true, leaseID: "x-operator"}, newScheme())
	if opts.LeaderElectionNamespace != "team-a" || opts.LeaderElectionID != "x-operator" {
		t.Errorf("lease %s/%s", opts.LeaderElectionNamespace, opts.LeaderElectionID)
	}
}

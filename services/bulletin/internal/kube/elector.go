// Package kube elects the bulletin's aggregator through a Kubernetes Lease
// (client-go's leader election), where the bulletin runs in a cluster.
package kube

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"sharedworld.dev/services/bulletin/internal/domain"
)

// Elector campaigns for the Lease namespace/name as holder.
type Elector struct {
	Client    kubernetes.Interface
	Namespace string
	Name      string
	Holder    string
	Log       *slog.Logger
}

// InCluster builds an Elector from the pod's service account.
func InCluster(namespace, name, holder string, log *slog.Logger) (*Elector, error) {
	cfg, err := rest.InClusterConfig()
	if err != nil {
		return nil, fmt.Errorf("kubernetes leader election: %w", err)
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes leader election: %w", err)
	}
	return &Elector{Client: c, Namespace: namespace, Name: name, Holder: holder, Log: log}, nil
}

// Lead leads while holding the Lease, with the lease timing of the database
// election (domain.LeaseDuration and the rest), and campaigns again after
// losing it, until ctx ends. The Lease's transitions count the terms.
func (e *Elector) Lead(ctx context.Context, lead func(ctx context.Context, term int64)) error {
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: e.Namespace, Name: e.Name},
		Client:     e.Client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: e.Holder},
	}
	for ctx.Err() == nil {
		le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock: lock, ReleaseOnCancel: true, Name: e.Name,
			LeaseDuration: domain.LeaseDuration, RenewDeadline: domain.LeaseRenewDeadline, RetryPeriod: domain.LeaseRetryEvery,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(ctx context.Context) {
					rec, _, err := lock.Get(ctx)
					term := int64(0)
					if err == nil {
						term = int64(rec.LeaderTransitions) + 1
					}
					e.Log.Info("leading the aggregator", slog.String("holder", e.Holder), slog.Int64("term", term))
					lead(ctx, term)
				},
				OnStoppedLeading: func() { e.Log.Info("standing by", slog.String("holder", e.Holder)) },
			},
		})
		if err != nil {
			return err
		}
		le.Run(ctx) // returns when leadership is lost or ctx ends
		select {
		case <-ctx.Done():
		case <-time.After(domain.LeaseRetryEvery):
		}
	}
	return nil
}

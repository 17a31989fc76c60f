package controller

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	worldv1 "sharedworld.dev/operator/api/v1alpha1"
)

// ReleaseWorlds is the chart's pre-delete hook: it deletes every World of
// ns while the operator still runs, so each finalizer returns the world to
// the chart's settings, and waits up to grace for them to go. A World
// still held after grace (no operator is running to let it go) loses the
// finalizer: nothing a release leaves behind may block the namespace's
// deletion. It returns the Worlds it had to let go itself.
func ReleaseWorlds(ctx context.Context, c client.Client, ns string, grace, poll time.Duration) ([]string, error) {
	var list worldv1.WorldList
	if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
		return nil, fmt.Errorf("list the Worlds of %s: %w", ns, err)
	}
	for i := range list.Items {
		if err := c.Delete(ctx, &list.Items[i]); client.IgnoreNotFound(err) != nil {
			return nil, fmt.Errorf("delete World %s: %w", list.Items[i].Name, err)
		}
	}
	remaining, err := waitGone(ctx, c, ns, grace, poll)
	if err != nil || len(remaining) == 0 {
		return nil, err
	}
	var forced []string
	for _, name := range remaining {
		key := client.ObjectKey{Namespace: ns, Name: name}
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			var w worldv1.World
			if err := c.Get(ctx, key, &w); err != nil || !controllerutil.RemoveFinalizer(&w, Finalizer) {
				return err
			}
			return c.Update(ctx, &w)
		})
		if client.IgnoreNotFound(err) != nil {
			return forced, fmt.Errorf("let World %s go: %w", name, err)
		}
		forced = append(forced, name)
	}
	return forced, nil
}

// waitGone polls until ns has no World or grace has passed, returning the
// names of those left.
func waitGone(ctx context.Context, c client.Client, ns string, grace, poll time.Duration) ([]string, error) {
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		var list worldv1.WorldList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return nil, fmt.Errorf("list the Worlds of %s: %w", ns, err)
		}
		names := make([]string, 0, len(list.Items))
		for _, w := range list.Items {
			names = append(names, w.Name)
		}
		if len(names) == 0 {
			return nil, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-deadline.C:
			return names, nil
		case <-tick.C:
		}
	}
}

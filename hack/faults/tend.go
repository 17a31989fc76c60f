package faults

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"

	"sharedworld.dev/hack/crash"
	"sharedworld.dev/pkg/client"
)

// tendOne writes again one garden file the load planted: a change of the
// garden that adds no file (and no planting to the feed).
func tendOne(ctx context.Context, base string, load *crash.Load) error {
	id := load.Identity()
	var paths []string
	for p := range load.Acked[crash.KindGarden] {
		paths = append(paths, p)
	}
	if id == nil || len(paths) == 0 {
		return fmt.Errorf("no citizen or garden file to tend")
	}
	slices.Sort(paths)
	api, err := client.New(base, client.WithIdentity(*id), client.WithRetry(client.RetryPolicy{Attempts: 1}))
	if err != nil {
		return err
	}
	ans, err := api.Exchange(ctx, "POST", "/api/world/storage/write", map[string]any{"plot_id": "plot_0_0", "path": paths[0],
		"content": base64.StdEncoding.EncodeToString([]byte("tended after the fault"))})
	if err != nil {
		return err
	}
	if ans.Status/100 != 2 {
		return fmt.Errorf("tend %s: %d %s", paths[0], ans.Status, ans.Body)
	}
	return nil
}

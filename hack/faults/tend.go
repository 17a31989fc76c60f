package faults

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"

	"sharedworld.dev/hack/crash"
)

// tendOne writes again one garden file the load planted: a change of the
// garden that adds no file (and no planting to the feed).
func tendOne(ctx context.Context, base string, load *crash.Load) error {
	headers := load.Headers()
	var paths []string
	for p := range load.Acked[crash.KindGarden] {
		paths = append(paths, p)
	}
	if headers == nil || len(paths) == 0 {
		return fmt.Errorf("no citizen or garden file to tend")
	}
	slices.Sort(paths)
	body, _ := json.Marshal(map[string]any{"plot_id": "plot_0_0", "path": paths[0],
		"content": base64.StdEncoding.EncodeToString([]byte("tended after the fault"))})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/world/storage/write", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("tend %s: %d %s", paths[0], resp.StatusCode, b)
	}
	return nil
}

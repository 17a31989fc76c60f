package logging

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
)

type parentKey struct{}

// The request's context is the parent's too: its values and cancellation
// reach through, and its logger tags every line with the request id.
func TestWithRequestKeepsTheParent(t *testing.T) {
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), parentKey{}, "kept"))
	var out bytes.Buffer
	base := slog.New(slog.NewJSONHandler(&out, nil))
	ctx := WithRequest(parent, base, "req-7")
	if ctx.Value(parentKey{}) != "kept" {
		t.Fatal("the parent's value is lost")
	}
	child, stop := context.WithCancel(ctx)
	defer stop()
	cancel()
	<-child.Done()
	if ctx.Err() == nil || child.Err() == nil {
		t.Fatal("the parent's cancellation did not reach the request's context")
	}
	FromContext(ctx).Info("hello")
	var line map[string]any
	if err := json.Unmarshal(out.Bytes(), &line); err != nil || line["request_id"] != "req-7" || line["msg"] != "hello" {
		t.Fatalf("log line %q", out.String())
	}
	if FromContext(ctx) != FromContext(ctx) { //nolint:staticcheck // two calls on purpose: the second must return what the first built
		t.Fatal("the request's logger is built more than once")
	}
}

package load

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/hack/world"
)

// A bounded saturation run against a world in this process whose door
// admits few writes at once, so that some are shed: whatever the timings,
// every acknowledged write is stored and shown exactly once, nothing shed
// is stored, and no answer breaks the contract (a 5xx other than 503 with
// Retry-After, or none at all).
func TestOpenLoopLosesAndDoublesNothing(t *testing.T) {
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	w, err := world.Start(context.Background(), world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(),
		AmbassadorToken: "load-test-token-0123456789", RequireSignatures: true,
		WritesInFlight: 4, WriteWait: 5 * time.Millisecond}, log)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop(20 * time.Second)
	c := NewClient(w.URL, 16)
	res, err := RunOpenLoop(context.Background(), c, OpenLoop{Citizens: 8, Rates: []float64{10, 40}, Step: 2 * time.Second, Settle: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if !PrintOpenLoop(&out, res) {
		t.Fatalf("the open-loop run failed:\n%s", out.String())
	}
	acked := 0
	for _, s := range res.Steps {
		acked += s.Acked
	}
	if len(res.Steps) != 2 || acked == 0 {
		t.Fatalf("too little happened:\n%s", out.String())
	}
	t.Log(out.String())
}

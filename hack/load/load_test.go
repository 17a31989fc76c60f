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

func TestDistributionUsesNearestRank(t *testing.T) {
	var lat []time.Duration
	for i := 100; i >= 1; i-- {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	d := Distribution(lat)
	if d.N != 100 || d.P50 != 50*time.Millisecond || d.P90 != 90*time.Millisecond || d.P99 != 99*time.Millisecond || d.Max != 100*time.Millisecond {
		t.Fatalf("got %+v", d)
	}
	if d := Distribution(nil); d.N != 0 || d.Max != 0 {
		t.Fatalf("empty: %+v", d)
	}
}

func TestGrowthJudgesTheLastThirdAgainstTheMiddle(t *testing.T) {
	g := Growth{Ratio: 0.10, Slack: 5}
	for _, c := range []struct {
		name   string
		series []float64
		ok     bool
	}{
		{"flat after warm-up", []float64{10, 50, 100, 100, 101, 99, 102, 100, 100}, true},
		{"within ratio and slack", []float64{100, 100, 100, 100, 100, 100, 114, 100, 100}, true},
		{"growing", []float64{100, 110, 120, 130, 140, 150, 160, 170, 180}, false},
		{"too few samples", []float64{1, 1, 1, 1, 1}, false},
	} {
		line, ok := g.Judge("x", Count, c.series)
		if ok != c.ok {
			t.Errorf("%s: ok %v, want %v (%s)", c.name, ok, c.ok, line)
		}
	}
}

func TestCheckLoopbackRefusesOtherHosts(t *testing.T) {
	for url, ok := range map[string]bool{
		"http://127.0.0.1:8080": true, "http://localhost:1": true, "http://[::1]:80": true,
		"http://10.0.0.1:8080": false, "https://example.org": false, "not a url": false,
	} {
		if err := CheckLoopback(url); (err == nil) != ok {
			t.Errorf("%s: err %v, want ok %v", url, err, ok)
		}
	}
}

func TestVisibilityMatchesItemsSeenBeforeOrAfterTheirAnswer(t *testing.T) {
	v := NewVisibility()
	t0 := time.Now()
	v.Acked("ticket", "tkt_1 ", t0)
	v.seen(Item{Type: "ticket", ID: "tkt_1", Line: "#ticket  t  tkt_1  Lamp"}, t0.Add(30*time.Millisecond))
	// The stream may deliver an item before the write's answer arrives.
	v.seen(Item{Type: "garden", ID: "/garden/a/b.md", Line: "#garden  t  Ada  planted  b.md"}, t0)
	v.Acked("garden", "/garden/a/b.md planted", t0.Add(time.Millisecond))
	// A tending of the same path is another item, not the planting's.
	v.Acked("garden", "/garden/a/b.md tended", t0)
	if v.Pending() != 1 {
		t.Fatalf("pending %d, want 1 (the tending)", v.Pending())
	}
	if d := v.Dist(); d.N != 2 || d.Max != 30*time.Millisecond || d.P50 != 0 {
		t.Fatalf("got %v", d)
	}
}

// A short run against a world in this process: every request is signed
// (the world requires it), nothing fails, every acknowledged write is in
// the feed once and counted — and a write the world never saw is caught.
func TestRunDrivesAWorldAndChecksEveryWrite(t *testing.T) {
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	w, err := world.Start(context.Background(), world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(),
		AmbassadorToken: "load-test-token-0123456789", RequireSignatures: true}, log)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop(20 * time.Second)
	ctx := context.Background()
	c := NewClient(w.URL, 8)
	res, err := Run(ctx, c, Config{Agents: 6, Actions: 25, Duration: time.Minute, Followers: 1, Settle: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	ok := Print(&out, Config{Agents: 6, Followers: 1}, res)
	if !ok {
		t.Fatalf("the run failed:\n%s", out.String())
	}
	if tot := res.Rec.Totals(); tot.OK < 6*5 || res.Ledger.Citizens != 6 || res.Ledger.Claims != 6 {
		t.Fatalf("too little happened: %+v, %d citizens, %d claims\n%s", tot, res.Ledger.Citizens, res.Ledger.Claims, out.String())
	}

	res.Ledger.with(func() { res.Ledger.fed("ticket", "tkt_00000000 "); res.Ledger.Tickets++ })
	chk, err := Verify(ctx, c, res.Ledger, res.base, 0)
	if err != nil {
		t.Fatal(err)
	}
	if chk.OK {
		t.Fatalf("a ticket the world never filed passed the check:\n%s", strings.Join(chk.Lines, "\n"))
	}
	failed := 0
	for _, l := range chk.Lines {
		if strings.HasPrefix(l, "FAIL") {
			failed++
			if !strings.Contains(l, "ticket") && !strings.Contains(l, "open") {
				t.Errorf("unexpected failure: %s", l)
			}
		}
	}
	if failed != 3 { // the feed, the bulletin's and the service's open counts
		t.Fatalf("%d lines failed, want 3:\n%s", failed, strings.Join(chk.Lines, "\n"))
	}
}

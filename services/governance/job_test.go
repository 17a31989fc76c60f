package governance_test

import (
	"encoding/base64"
	"testing"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/governance"
	"sharedworld.dev/services/governance/internal/ballot"
)

// The governance-check job applies what is due and exits cleanly; without
// a ballot key (and no data directory to keep one) it fails saying why.
func TestCheckJob(t *testing.T) {
	w := newWorld(t, 1000)
	cs := w.citizens(t, 1)
	id := w.propose(t, cs[0], "emergency")["proposal_id"].(string)
	job, ok := governance.Unit.Job("governance-check")
	if !ok {
		t.Fatal("no governance-check job")
	}
	deps := w.kit.Deps(clock.NewFixed(start.Add(4 * time.Hour)))
	if err := job.Run(w.kit.Ctx(), platform.Env{Deps: deps}); err == nil {
		t.Fatal("the job ran without a ballot key")
	}
	t.Setenv("WORLD_GOVERNANCE_BALLOT_KEY", base64.StdEncoding.EncodeToString(w.key))
	if err := job.Run(w.kit.Ctx(), platform.Env{Deps: deps}); err != nil {
		t.Fatal(err)
	}
	if got := w.proposal(t, id)["status"]; got != "failed" {
		t.Fatalf("§7 after the job the emergency proposal is %v, want failed", got)
	}
	t.Setenv("WORLD_GOVERNANCE_BALLOT_KEY", base64.StdEncoding.EncodeToString(ballot.NewKey()[:16]))
	if err := governance.Unit.Check(); err == nil {
		t.Fatal("a 16-byte ballot key passed the settings check")
	}
}

func TestNextRunIsMinute19(t *testing.T) {
	for _, tt := range []struct{ now, want time.Time }{
		{time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC), time.Date(2026, 11, 22, 9, 19, 0, 0, time.UTC)},
		{time.Date(2026, 11, 22, 9, 19, 0, 0, time.UTC), time.Date(2026, 11, 22, 10, 19, 0, 0, time.UTC)},
		{time.Date(2026, 11, 22, 23, 30, 0, 0, time.UTC), time.Date(2026, 11, 23, 0, 19, 0, 0, time.UTC)},
	} {
		if got := governance.NextRun(tt.now); !got.Equal(tt.want) {
			t.Errorf("§7 NextRun(%v) = %v, want %v", tt.now, got, tt.want)
		}
	}
}

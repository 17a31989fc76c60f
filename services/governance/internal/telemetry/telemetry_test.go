package telemetry

import (
	"testing"
	"time"

	"sharedworld.dev/pkg/metrics"
)

func gauge(t *testing.T, name string) (float64, bool) {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		if len(f.GetMetric()) != 1 || f.GetMetric()[0].GetGauge() == nil {
			t.Fatalf("%s: %d series of type %v, want one gauge", name, len(f.GetMetric()), f.GetType())
		}
		return f.GetMetric()[0].GetGauge().GetValue(), true
	}
	return 0, false
}

// A process that has not completed a check yet does not know when the last
// one succeeded: it exports no last-success series (an epoch-zero value
// reads as "no success since 1970" and pages on every fresh start), and
// says since when it runs the hourly check instead.
func TestCheckTimestampsAreExportedOnceKnown(t *testing.T) {
	const last = "sharedworld_governance_check_last_success_timestamp_seconds"
	const since = "sharedworld_governance_check_scheduled_since_timestamp_seconds"
	if v, ok := gauge(t, last); ok {
		t.Fatalf("before any check succeeded, %s = %v is exported", last, v)
	}
	if v, ok := gauge(t, since); ok {
		t.Fatalf("before the hourly check was scheduled, %s = %v is exported", since, v)
	}

	started := time.Unix(1_700_000_000, 0)
	Observer{}.CheckScheduled(started)
	if v, ok := gauge(t, since); !ok || v != float64(started.Unix()) {
		t.Fatalf("%s = %v (exported %v), want %d", since, v, ok, started.Unix())
	}
	if v, ok := gauge(t, last); ok {
		t.Fatalf("scheduling is not a success, yet %s = %v", last, v)
	}

	done := started.Add(19 * time.Minute)
	Observer{}.CheckSucceeded(done, time.Second, nil)
	if v, ok := gauge(t, last); !ok || v != float64(done.Unix()) {
		t.Fatalf("%s = %v (exported %v), want %d", last, v, ok, done.Unix())
	}
}

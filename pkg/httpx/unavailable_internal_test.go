package httpx

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"sharedworld.dev/pkg/problem"
)

var errDriverDown = errors.New("connection reset by the database")

func init() { problem.RegisterOutage(func(err error) bool { return errors.Is(err, errDriverDown) }) }

// An outage a dependency's package registered, and a passed request
// deadline, are a 503 (with Retry-After), never a 500; a plain error stays
// internal.
func TestOutagesAreUnavailable(t *testing.T) {
	for name, err := range map[string]error{
		"registered outage": fmt.Errorf("store garden file: %w", errDriverDown),
		"deadline":          fmt.Errorf("read plot: %w", context.DeadlineExceeded),
	} {
		if pe := Classify(err); pe.Kind != problem.KindUnavailable {
			t.Errorf("%s: %v classified as %v, want unavailable", name, err, pe.Kind)
		}
	}
	if pe := Classify(errors.New("a bug")); pe.Kind != problem.KindInternal {
		t.Fatalf("a plain error must stay internal, got %v", pe.Kind)
	}
}

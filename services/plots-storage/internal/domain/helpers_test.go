package domain

import (
	"testing"

	"sharedworld.dev/pkg/problem"
)

// accepted stands for "no error" in the want column of table tests.
const accepted = problem.Kind(-1)

// checkKind fails the test unless err is nil (want == accepted) or a problem
// of kind want carrying a message and a hint (CONTRACT §1: every error tells
// the agent what to change).
func checkKind(t *testing.T, err error, want problem.Kind) {
	t.Helper()
	if want == accepted {
		if err != nil {
			t.Fatalf("want success, got %v", err)
		}
		return
	}
	pe, ok := problem.As(err)
	if !ok {
		t.Fatalf("want a problem of kind %d, got %v", want, err)
	}
	if pe.Kind != want {
		t.Fatalf("want kind %d, got kind %d: %v", want, pe.Kind, err)
	}
	if pe.Message == "" || pe.Hint == "" {
		t.Fatalf("problem without message or hint: %+v", pe)
	}
}

func intp(i int) *int    { return &i }
func boolp(b bool) *bool { return &b }

package domain

import (
	"testing"

	"sharedworld.dev/pkg/problem"
)

// wantProblem fails unless err is a problem of kind k with code (empty code:
// the kind's default), and with a hint, since every contract error has one.
func wantProblem(t *testing.T, err error, k problem.Kind, code string) {
	t.Helper()
	pe, ok := problem.As(err)
	if !ok {
		t.Fatalf("error = %v, want a problem of kind %d", err, k)
	}
	if pe.Kind != k || pe.Code != code {
		t.Fatalf("problem = kind %d code %q (%s), want kind %d code %q", pe.Kind, pe.Code, pe.Message, k, code)
	}
	if pe.Hint == "" || pe.Message == "" {
		t.Fatalf("problem %q has no message or hint", pe.Error())
	}
}

func ptr[T any](v T) *T { return &v }

package load

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
)

// A 503 whose write started (the deadline passed, or the database broke
// mid-write) may be stored; a refusal at the door, a rate limit and a lost
// answer are told apart from it.
func TestAnswerTellsAWriteThatMayHaveBeenApplied(t *testing.T) {
	body := func(pe *problem.Error) map[string]any {
		_, code := httpx.StatusOf(pe)
		return map[string]any{"ok": false, "error": code, "message": pe.Message, "hint": pe.Hint}
	}
	deadline := httpx.Classify(context.DeadlineExceeded)
	door := problem.Unavailable("The world is taking as many writes as it can commit right now; this one was not started.",
		"Nothing was written: send the same request again after Retry-After seconds.")
	for _, c := range []struct {
		name string
		a    Answer
		want bool
	}{
		{"503 at the deadline", Answer{Status: http.StatusServiceUnavailable, Body: body(deadline)}, true},
		{"503 at the door", Answer{Status: http.StatusServiceUnavailable, Body: body(door)}, false},
		{"429", Answer{Status: http.StatusTooManyRequests, Body: map[string]any{"hint": "Retry after 10 seconds."}}, false},
		{"no answer", Answer{Err: errors.New("timeout")}, false},
		{"201", Answer{Status: http.StatusCreated}, false},
	} {
		if got := c.a.OutcomeUnknown(); got != c.want {
			t.Errorf("%s: OutcomeUnknown %v, want %v", c.name, got, c.want)
		}
	}
}

package problem

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestAsFindsWrappedProblem(t *testing.T) {
	base := Conflict("plot taken", "pick another cell")
	err := fmt.Errorf("claim: %w", base)
	pe, ok := As(err)
	if !ok || pe != base {
		t.Fatalf("As did not unwrap the problem: %v", err)
	}
	if !IsKind(err, KindConflict) || IsKind(err, KindNotFound) {
		t.Fatal("IsKind answered wrongly")
	}
	if !errors.Is(err, Conflict("plot taken", "other hint")) {
		t.Fatal("errors.Is should match same kind, code and message")
	}
	if errors.Is(err, Conflict("other", "")) {
		t.Fatal("errors.Is matched a different message")
	}
}

func TestConstructorsKeepFields(t *testing.T) {
	rl := RateLimited("5 tickets today", "try tomorrow", 90*time.Second)
	if rl.Kind != KindRateLimited || rl.RetryAfter != 90*time.Second || rl.Hint != "try tomorrow" {
		t.Fatalf("rate limit fields lost: %+v", rl)
	}
	c := Validation("too long", "shorten").WithCode("DESCRIPTION_TOO_LONG")
	if c.Code != "DESCRIPTION_TOO_LONG" || c.Kind != KindValidation || c.Error() != "DESCRIPTION_TOO_LONG: too long" {
		t.Fatalf("WithCode: %+v", c)
	}
}

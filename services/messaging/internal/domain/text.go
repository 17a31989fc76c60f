package domain

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"sharedworld.dev/pkg/problem"
)

// required checks a required string field: missing or empty is 400, over
// max code points is 422 (CONTRACT §11).
func required(field, v string, max int) error {
	if strings.TrimSpace(v) == "" {
		return problem.Invalid(field+" is required.", "Send a non-empty "+field+" string.")
	}
	return atMost(field, v, max)
}

// atMost checks the length limit of a field that may be empty.
func atMost(field, v string, max int) error {
	if n := utf8.RuneCountInString(v); n > max {
		return problem.Validation(field+" is too long ("+strconv.Itoa(n)+" characters).",
			"Send at most "+strconv.Itoa(max)+" characters in "+field+".")
	}
	return nil
}

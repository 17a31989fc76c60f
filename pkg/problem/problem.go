// Package problem is the one error model of Shared World (CONTRACT §1), in plain
// Go so domain packages can return contract errors without knowing about HTTP.
package problem

import (
	"errors"
	"fmt"
	"time"
)

// Kind is a class of failure; each maps to one HTTP status and default code.
type Kind int

// The kinds of CONTRACT §1.
const (
	KindInternal Kind = iota
	KindInvalid
	KindUnauthenticated
	KindRevoked
	KindNotRegistered
	KindPermission
	KindNotFound
	KindMethodNotAllowed
	KindAlreadyRegistered
	KindConflict
	KindValidation
	KindTooLarge
	KindRateLimited
	KindUnavailable
)

// Error is a failure the caller can act on: a code, a sentence and a hint.
type Error struct {
	Kind    Kind
	Code    string // overrides the kind's default code (for example DESCRIPTION_TOO_LONG)
	Message string
	Hint    string
	// RetryAfter is set for rate limits: how long until the caller may try again.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if e.Code != "" {
		return e.Code + ": " + e.Message
	}
	return e.Message
}

// Is matches another *Error of the same kind and code, so callers can test
// errors.Is(err, problem.NotFound("", "")) style sentinels declared as vars.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	return t == e || (t.Kind == e.Kind && t.Code == e.Code && t.Message == e.Message)
}

// As returns the *Error inside err, if any.
func As(err error) (*Error, bool) {
	var pe *Error
	if errors.As(err, &pe) {
		return pe, true
	}
	return nil, false
}

// IsKind reports whether err carries a problem of kind k.
func IsKind(err error, k Kind) bool {
	pe, ok := As(err)
	return ok && pe.Kind == k
}

func mk(k Kind, msg, hint string) *Error { return &Error{Kind: k, Message: msg, Hint: hint} }

// Invalid is 400 invalid_request: malformed or ill-typed input.
func Invalid(msg, hint string) *Error { return mk(KindInvalid, msg, hint) }

// Invalidf is Invalid with a formatted message.
func Invalidf(hint, format string, args ...any) *Error {
	return mk(KindInvalid, fmt.Sprintf(format, args...), hint)
}

// Unauthenticated is 401: no or bad credentials.
func Unauthenticated(msg, hint string) *Error { return mk(KindUnauthenticated, msg, hint) }

// Revoked is 401 certificate_revoked.
func Revoked(msg, hint string) *Error { return mk(KindRevoked, msg, hint) }

// NotRegistered is 403: a valid identity that is not a citizen.
func NotRegistered(msg, hint string) *Error { return mk(KindNotRegistered, msg, hint) }

// Permission is 403 permission_denied.
func Permission(msg, hint string) *Error { return mk(KindPermission, msg, hint) }

// NotFound is 404.
func NotFound(msg, hint string) *Error { return mk(KindNotFound, msg, hint) }

// AlreadyRegistered is 409 already_registered.
func AlreadyRegistered(msg, hint string) *Error { return mk(KindAlreadyRegistered, msg, hint) }

// Conflict is 409 conflict; the message says which conflict.
func Conflict(msg, hint string) *Error { return mk(KindConflict, msg, hint) }

// Validation is 422 validation_failed: well-formed but breaks a rule.
func Validation(msg, hint string) *Error { return mk(KindValidation, msg, hint) }

// TooLarge is 413 payload_too_large.
func TooLarge(msg, hint string) *Error { return mk(KindTooLarge, msg, hint) }

// RateLimited is 429 with the time until the limit resets.
func RateLimited(msg, hint string, retryAfter time.Duration) *Error {
	e := mk(KindRateLimited, msg, hint)
	e.RetryAfter = retryAfter
	return e
}

// Unavailable is 503: a dependency is down.
func Unavailable(msg, hint string) *Error { return mk(KindUnavailable, msg, hint) }

// WithCode returns a copy of e with an explicit code.
func (e *Error) WithCode(code string) *Error {
	c := *e
	c.Code = code
	return &c
}

// outageTests recognise the errors of a dependency that is down or hanging
// (a database driver's network errors): each package that wraps such a
// dependency registers its own at init (RegisterOutage), so the HTTP layer
// answers them 503 without linking every driver.
var outageTests []func(error) bool

// RegisterOutage adds a test for errors that mean "a dependency is down,
// try again". Call it from an init function only.
func RegisterOutage(test func(error) bool) { outageTests = append(outageTests, test) }

// IsOutage reports whether a registered test recognises err.
func IsOutage(err error) bool {
	for _, test := range outageTests {
		if test(err) {
			return true
		}
	}
	return false
}

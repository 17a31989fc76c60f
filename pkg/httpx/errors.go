// Package httpx is the Fiber side of the shared kit: the app factory, the
// contract's error body, request decoding, pagination and health routes.
package httpx

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/logging"
	"sharedworld.dev/pkg/problem"
)

// ErrorBody is the contract's error JSON (CONTRACT §1).
type ErrorBody struct {
	OK      bool   `json:"ok"`
	Error   string `json:"error"`
	Message string `json:"message"`
	Hint    string `json:"hint"`
}

var kinds = map[problem.Kind]struct {
	status int
	code   string
}{
	problem.KindInternal:          {http.StatusInternalServerError, "INTERNAL_ERROR"},
	problem.KindInvalid:           {http.StatusBadRequest, "invalid_request"},
	problem.KindUnauthenticated:   {http.StatusUnauthorized, "unauthenticated"},
	problem.KindRevoked:           {http.StatusUnauthorized, "certificate_revoked"},
	problem.KindNotRegistered:     {http.StatusForbidden, "not_registered"},
	problem.KindPermission:        {http.StatusForbidden, "permission_denied"},
	problem.KindNotFound:          {http.StatusNotFound, "not_found"},
	problem.KindMethodNotAllowed:  {http.StatusMethodNotAllowed, "method_not_allowed"},
	problem.KindAlreadyRegistered: {http.StatusConflict, "already_registered"},
	problem.KindConflict:          {http.StatusConflict, "conflict"},
	problem.KindValidation:        {http.StatusUnprocessableEntity, "validation_failed"},
	problem.KindTooLarge:          {http.StatusRequestEntityTooLarge, "payload_too_large"},
	problem.KindRateLimited:       {http.StatusTooManyRequests, "rate_limited"},
	problem.KindUnavailable:       {http.StatusServiceUnavailable, "unavailable"},
}

// StatusOf returns the HTTP status and error code for a problem.
func StatusOf(pe *problem.Error) (int, string) {
	k := kinds[pe.Kind]
	if pe.Code != "" {
		return k.status, pe.Code
	}
	return k.status, k.code
}

// Classify turns any error into a contract problem. Framework errors keep
// their status; dependency outages become 503; anything else is internal.
func Classify(err error) *problem.Error {
	if pe, ok := problem.As(err); ok {
		return pe
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		switch fe.Code {
		case http.StatusNotFound:
			return problem.NotFound("No such path.", "Check the path against /openapi.json; every API path starts with /api/world/ or /api/admin/.")
		case http.StatusMethodNotAllowed:
			return &problem.Error{Kind: problem.KindMethodNotAllowed, Message: "This path does not accept that method.", Hint: "See /openapi.json for the methods each path accepts."}
		case http.StatusRequestEntityTooLarge:
			return problem.TooLarge("The request body is over its limit.", "Send at most 1 MiB (2 MiB for storage/write, 8 MiB for continuity/backup).")
		case http.StatusRequestHeaderFieldsTooLarge:
			return problem.Invalid("Request headers are too large.", "Send the certificate in the body instead of a header.")
		case http.StatusRequestTimeout:
			return problem.Invalid("The request timed out while being read.", "Send the whole body promptly.")
		case http.StatusBadRequest:
			return problem.Invalid("The request could not be parsed.", "Send a well-formed HTTP request with a JSON body.")
		}
	}
	if isUnavailable(err) {
		return problem.Unavailable("A storage or messaging dependency is unavailable.", "Retry after Retry-After seconds. If the database connection broke mid-write, "+MayHaveBeenApplied+": a repeat then answers as a repeat does (409, or 429 at a daily limit); read before repeating a write that is not idempotent.")
	}
	return &problem.Error{Kind: problem.KindInternal, Message: "Internal server error.", Hint: "Retry later; if it persists, file a ticket with the X-Request-Id header value."}
}

// MayHaveBeenApplied is said in the hint of a 503 whose write started and
// whose outcome is not known, unlike a refusal at the door, where nothing
// was done: a client that keeps a ledger of its writes (the load tool)
// counts such a write as possibly stored.
const MayHaveBeenApplied = "this write may have been applied"

// UnavailableRetry is the Retry-After of a 503 that names no wait of its
// own: a dependency (database, broker) is expected back within seconds.
const UnavailableRetry = 5 * time.Second

// isUnavailable: the request's deadline passed, or a dependency is down
// (the tests its client package registered with problem.RegisterOutage).
func isUnavailable(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || problem.IsOutage(err)
}

// ErrorHandler writes every error as the contract's JSON body. Internal
// errors are logged with the request's logger; their details never leave.
func ErrorHandler(c *fiber.Ctx, err error) error {
	pe := Classify(err)
	status, code := StatusOf(pe)
	log := logging.FromContext(c.UserContext())
	if status >= 500 {
		log.Error("request failed", slog.String("error", err.Error()), slog.Int("status", status))
	}
	retry := pe.RetryAfter
	if pe.Kind == problem.KindUnavailable && retry <= 0 {
		retry = UnavailableRetry
	}
	if (pe.Kind == problem.KindRateLimited || pe.Kind == problem.KindUnavailable) && retry > 0 {
		secs := int(retry.Seconds() + 0.999)
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
	}
	return writeJSON(c, status, ErrorBody{OK: false, Error: code, Message: pe.Message, Hint: pe.Hint})
}

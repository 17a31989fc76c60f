package client

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Error is an answer of the world other than 2xx: the contract's body
// {ok:false, error, message, hint} with the HTTP status.
type Error struct {
	Status  int    `json:"status"`
	Code    string `json:"error"` // the contract's error code, e.g. "conflict"
	Message string `json:"message"`
	Hint    string `json:"hint"`
	// RequestID is the answer's X-Request-Id: quote it in a ticket.
	RequestID string `json:"request_id,omitempty"`
	// RetryAfter is the answer's Retry-After (429), or 0.
	RetryAfter time.Duration `json:"-"`
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
	if e.Hint != "" {
		s += " (hint: " + e.Hint + ")"
	}
	return s
}

// Refused reports a 4xx: the world understood the request and said no.
func (e *Error) Refused() bool { return e.Status >= 400 && e.Status < 500 }

// readError reads an error answer. A body that is not the contract's (a
// proxy's HTML page) still gives an Error with the status.
func readError(resp *http.Response) *Error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	e := &Error{}
	_ = json.Unmarshal(raw, e)
	e.Status = resp.StatusCode
	e.RequestID = resp.Header.Get("X-Request-Id")
	if e.Code == "" {
		e.Code = http.StatusText(resp.StatusCode)
		if e.Message == "" {
			e.Message = fmt.Sprintf("the world answered %d without the error body", resp.StatusCode)
		}
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		e.RetryAfter = time.Duration(s) * time.Second
	} else if t, err := http.ParseTime(resp.Header.Get("Retry-After")); err == nil {
		e.RetryAfter = max(time.Until(t), time.Second)
	}
	return e
}

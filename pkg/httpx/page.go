package httpx

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/problem"
)

// Default and maximum page sizes (CONTRACT §1).
const (
	DefaultLimit = 50
	MaxLimit     = 100
)

// Limit reads the `limit` query parameter: default 50, capped at 100,
// non-numeric or below 1 is invalid_request (CONTRACT §11).
func Limit(c *fiber.Ctx) (int, error) { return ParseLimit(c.Query("limit"), DefaultLimit) }

// ParseLimit is Limit over a raw value with a chosen default.
func ParseLimit(raw string, def int) (int, error) {
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if isRange(err) && raw[0] != '-' {
		// A whole number too large for an int is a large limit like any other.
		return MaxLimit, nil
	}
	if err != nil || n < 1 {
		return 0, problem.Invalidf("Send limit as a whole number from 1 to 100.", "limit %q is not a positive whole number.", clip(raw))
	}
	if n > MaxLimit {
		n = MaxLimit
	}
	return n, nil
}

// Pagination is the contract's page description.
type Pagination struct {
	Limit int     `json:"limit"`
	Count int     `json:"count"`
	Next  *string `json:"next"`
}

// EncodeCursor makes an opaque cursor from a position value.
func EncodeCursor(pos any) string {
	b, _ := json.Marshal(pos)
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor reads a cursor made by EncodeCursor; anything else is
// invalid_request (CONTRACT §1: an unknown cursor is 400). A cursor must
// carry exactly the fields EncodeCursor writes for its position: a made-up
// one ({} or other keys) would otherwise decode as a zero position and
// silently restart the list.
func DecodeCursor(raw string, pos any) error {
	if !sameFields(raw, pos) {
		return UnknownCursor()
	}
	return nil
}

// UnknownCursor is the refusal of a cursor the list did not make: one
// DecodeCursor refuses, or one whose fields a list finds made up.
func UnknownCursor() error {
	return problem.Invalid("Unknown cursor.", "Pass back the pagination.next value of the previous page unchanged, or omit cursor for the first page.")
}

func sameFields(raw string, pos any) bool {
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil || !utf8.Valid(b) {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if dec.Decode(pos) != nil || dec.More() {
		return false
	}
	var sent, want map[string]json.RawMessage
	again, err := json.Marshal(pos)
	if err != nil || json.Unmarshal(b, &sent) != nil || json.Unmarshal(again, &want) != nil {
		return false
	}
	// Fields EncodeCursor omits as empty may be sent or not; every other
	// field must be there, under its exact name.
	for k := range sent {
		if _, ok := want[k]; !ok && !isEmptyJSON(sent[k]) {
			return false
		}
	}
	for k := range want {
		if _, ok := sent[k]; !ok {
			return false
		}
	}
	return true
}

func isEmptyJSON(v json.RawMessage) bool {
	switch string(bytes.TrimSpace(v)) {
	case `""`, "0", "false", "null", "[]", "{}":
		return true
	}
	return false
}

func isRange(err error) bool {
	var ne *strconv.NumError
	return errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange)
}

// clip keeps an echoed query value short: a message repeats what was sent
// only as far as it helps.
func clip(s string) string {
	if len(s) <= 40 {
		return s
	}
	return s[:40] + "…"
}

// ParseOffset reads an `offset` query value: default 0, non-negative whole number.
func ParseOffset(raw string) (int, error) {
	if raw == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 0 {
		return 0, problem.Invalidf("Send offset as a whole number of 0 or more.", "offset %q is not a non-negative whole number.", clip(raw))
	}
	return n, nil
}

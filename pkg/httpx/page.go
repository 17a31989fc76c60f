package httpx

import (
	"encoding/base64"
	"encoding/json"
	"strconv"

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
	if err != nil || n < 1 {
		return 0, problem.Invalidf("Send limit as a whole number from 1 to 100.", "limit %q is not a positive whole number.", raw)
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

// DecodeCursor reads a cursor made by EncodeCursor; anything else is invalid_request.
func DecodeCursor(raw string, pos any) error {
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err == nil {
		err = json.Unmarshal(b, pos)
	}
	if err != nil {
		return problem.Invalid("Unknown cursor.", "Pass back the pagination.next value of the previous page unchanged, or omit cursor for the first page.")
	}
	return nil
}

// ParseOffset reads an `offset` query value: default 0, non-negative whole number.
func ParseOffset(raw string) (int, error) {
	if raw == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 0 {
		return 0, problem.Invalidf("Send offset as a whole number of 0 or more.", "offset %q is not a non-negative whole number.", raw)
	}
	return n, nil
}

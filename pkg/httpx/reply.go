package httpx

import (
	"encoding/json"

	"github.com/gofiber/fiber/v2"
)

// ContentTypeJSON is the content type of every JSON response (CONTRACT §1).
const ContentTypeJSON = "application/json; charset=utf-8"

func writeJSON(c *fiber.Ctx, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.Status(status)
	c.Set(fiber.HeaderContentType, ContentTypeJSON)
	return c.Send(b)
}

// OK writes a success body: `"ok": true` plus fields at top level.
func OK(c *fiber.Ctx, status int, fields fiber.Map) error {
	body := make(fiber.Map, len(fields)+1)
	for k, v := range fields {
		body[k] = v
	}
	body["ok"] = true
	return writeJSON(c, status, body)
}

// JSON writes v as the response; v must already carry `ok`.
func JSON(c *fiber.Ctx, status int, v any) error { return writeJSON(c, status, v) }

package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/problem"
)

// Decode reads the JSON body into v, a typed struct. Unknown fields are
// ignored; a field of the wrong JSON type, malformed JSON or a body that is
// not an object is invalid_request with a hint naming the field. An empty
// body decodes as {} so that missing fields are reported by validation.
func Decode(c *fiber.Ctx, v any) error { return DecodeBytes(c.Body(), v) }

// DecodeBytes is Decode over raw bytes.
func DecodeBytes(body []byte, v any) error {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		body = []byte("{}")
	}
	if body[0] != '{' {
		return problem.Invalid("The request body must be a JSON object.", `Send a JSON object such as {"field": "value"} with Content-Type: application/json.`)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return decodeProblem(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return problem.Invalid("The request body has data after the JSON object.", "Send exactly one JSON object.")
	}
	return nil
}

func decodeProblem(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "(body)"
		}
		return problem.Invalidf(fmt.Sprintf("Send %q as a JSON %s.", field, jsonKind(te.Type.Kind().String())),
			"Field %q has the wrong type: got a JSON %s.", field, te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return problem.Invalidf("Check the JSON syntax (quotes, commas, braces) and send Content-Type: application/json.",
			"Malformed JSON at byte %d: %s.", se.Offset, se.Error())
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return problem.Invalid("The JSON body ends too early.", "Send a complete JSON object.")
	}
	return problem.Invalid("The request body could not be decoded: "+strings.TrimPrefix(err.Error(), "json: ")+".", "Send a JSON object whose fields have the documented types (see /openapi.json).")
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "slice", "array":
		return "array"
	case "map", "struct", "ptr":
		return "object"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "integer"
	case "float32", "float64":
		return "number"
	default:
		return goKind
	}
}

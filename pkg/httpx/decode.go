package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/problem"
)

// Decode reads the JSON body into v, a typed struct. Unknown fields are
// ignored; a field of the wrong JSON type, malformed JSON, text that is not
// UTF-8 or a body that is not an object is invalid_request with a hint
// naming the field. An empty body decodes as {} so that missing fields are
// reported by validation. A *problem.Error returned by a field's own
// UnmarshalJSON reaches the client as it is.
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
	// encoding/json would replace bad UTF-8 and lone surrogate escapes with
	// U+FFFD without a word: the client's text would be stored changed.
	if err := checkJSONText(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return decodeProblem(err, reflect.TypeOf(v))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return problem.Invalid("The request body has data after the JSON object.", "Send exactly one JSON object.")
	}
	return nil
}

// checkJSONText refuses a body that is not UTF-8 or whose strings escape a
// lone UTF-16 surrogate (\ud800 without its pair), which no text can hold.
func checkJSONText(body []byte) error {
	if !utf8.Valid(body) {
		return problem.Invalidf("Send the body as UTF-8 text; escape other characters as \\uXXXX.",
			"The request body is not valid UTF-8 (byte %d).", invalidUTF8At(body))
	}
	for i := bytes.IndexByte(body, '\\'); i >= 0 && i+1 < len(body); {
		skip := 2
		if body[i+1] == 'u' {
			r, ok := hex4(body, i+2)
			switch {
			case ok && r >= 0xD800 && r <= 0xDBFF:
				low, lok := rune(0), false
				if i+7 < len(body) && body[i+6] == '\\' && body[i+7] == 'u' {
					low, lok = hex4(body, i+8)
				}
				if !lok || low < 0xDC00 || low > 0xDFFF {
					return loneSurrogate(r)
				}
				skip = 12
			case ok && r >= 0xDC00 && r <= 0xDFFF:
				return loneSurrogate(r)
			}
		}
		next := bytes.IndexByte(body[min(i+skip, len(body)):], '\\')
		if next < 0 {
			break
		}
		i += skip + next
	}
	return nil
}

func loneSurrogate(r rune) error {
	return problem.Invalidf("Escape characters outside the Basic Multilingual Plane as a surrogate pair (\\ud83d\\ude00), or send them as UTF-8.",
		"The request body escapes a lone UTF-16 surrogate \\u%04x, which is not a character.", r)
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}

func decodeProblem(err error, root reflect.Type) error {
	if pe, ok := problem.As(err); ok {
		return pe
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := jsonPath(root, te.Field)
		if field == "" {
			field = "(body)"
		}
		got := te.Value
		if got == "" {
			got = "value"
		}
		return problem.Invalidf(fmt.Sprintf("Send %q as a JSON %s.", field, jsonKind(te.Type.Kind().String())),
			"Field %q has the wrong type: got a JSON %s.", field, got)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return problem.Invalidf("Check the JSON syntax (quotes, commas, braces) and send Content-Type: application/json.",
			"Malformed JSON at byte %d: %s.", se.Offset, se.Error())
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return problem.Invalid("The JSON body ends too early.", "Send a complete JSON object.")
	}
	return problem.Invalid("The request body could not be decoded.", "Send a JSON object whose fields have the documented types (see /openapi.json).")
}

// jsonPath turns encoding/json's field path into the names the client
// sent: the decoder names a field of an embedded struct after the Go type
// it is embedded through (permissionFields.allowed_agents), which the
// client never saw. Components that name an embedded struct are dropped.
func jsonPath(root reflect.Type, goPath string) string {
	if goPath == "" || root == nil {
		return goPath
	}
	parts := strings.Split(goPath, ".")
	out := parts[:0]
	t := root
	for _, p := range parts {
		t = elem(t)
		if t == nil || t.Kind() != reflect.Struct {
			out = append(out, p)
			t = nil
			continue
		}
		if f, ok := t.FieldByName(p); ok && f.Anonymous && f.Tag.Get("json") == "" {
			t = f.Type
			continue
		}
		out = append(out, p)
		t = fieldByJSONName(t, p)
	}
	return strings.Join(out, ".")
}

// elem looks through pointers, slices, arrays and maps to the value type.
func elem(t reflect.Type) reflect.Type {
	for t != nil {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			t = t.Elem()
		default:
			return t
		}
	}
	return nil
}

func fieldByJSONName(t reflect.Type, name string) reflect.Type {
	for _, f := range reflect.VisibleFields(t) {
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == name || (tag == "" && strings.EqualFold(f.Name, name)) {
			return f.Type
		}
	}
	return nil
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

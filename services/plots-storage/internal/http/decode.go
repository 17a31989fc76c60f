package http

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// gridInt is a coordinate as sent. A JSON integer of any size is accepted
// here so that the domain can call one off the grid out of bounds (422); a
// string, a fraction or anything else is a wrong type (400).
type gridInt struct{ value int }

// farOff stands for any integer too large to be near the grid: one beyond
// it is called off the grid here, as sent (1e20), not as a clamped int.
const farOff = 1 << 40

func (n *gridInt) UnmarshalJSON(b []byte) error {
	wrong := &json.UnmarshalTypeError{Value: jsonKindOf(b), Type: reflect.TypeFor[int]()}
	if len(b) == 0 || (b[0] != '-' && (b[0] < '0' || b[0] > '9')) {
		if string(b) == "null" {
			return nil
		}
		return wrong
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil && !isRangeErr(err) {
		return wrong
	}
	if f != math.Trunc(f) {
		return wrong
	}
	if math.Abs(f) > farOff {
		sent := string(b)
		if len(sent) > 24 {
			sent = sent[:24] + "…"
		}
		return problem.Validation(fmt.Sprintf("the coordinate %s is outside the grid", sent),
			fmt.Sprintf("x and y are integers from %d to %d", domain.GridMin, domain.GridMax))
	}
	n.value = int(f)
	return nil
}

// jsonKindOf names the JSON kind of a value that is not an integer.
func jsonKindOf(b []byte) string {
	if len(b) == 0 {
		return "value"
	}
	switch b[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	}
	return "number with a fraction"
}

func isRangeErr(err error) bool {
	var ne *strconv.NumError
	return errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange)
}

type cellJSON struct {
	X *gridInt `json:"x"`
	Y *gridInt `json:"y"`
}

func (c *cellJSON) input() domain.CellInput {
	if c == nil {
		return domain.CellInput{}
	}
	var in domain.CellInput
	if c.X != nil {
		in.X = &c.X.value
	}
	if c.Y != nil {
		in.Y = &c.Y.value
	}
	return in
}

// queryCell reads near_x/near_y; absent means the origin (CONTRACT §4).
func queryCell(c *fiber.Ctx) (domain.Coordinates, error) {
	var out domain.Coordinates
	for _, q := range []struct {
		name string
		into *int
	}{{"near_x", &out.X}, {"near_y", &out.Y}} {
		raw := c.Query(q.name)
		if raw == "" {
			continue
		}
		v, err := strconv.Atoi(raw)
		if err != nil {
			return out, problem.Invalidf("send "+q.name+" as a whole number from 0 to 999", "%s %q is not a whole number", q.name, raw)
		}
		*q.into = v
	}
	return out, nil
}

package http

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// gridInt is a coordinate as sent. A JSON integer of any size is accepted
// here so that the domain can call a huge one out of bounds (422); a string,
// a fraction or anything else is a wrong type (400).
type gridInt struct{ value int }

// farOff stands for any integer too large to be near the grid.
const farOff = 1 << 40

func (n *gridInt) UnmarshalJSON(b []byte) error {
	wrong := &json.UnmarshalTypeError{Value: "non-integer", Type: reflect.TypeFor[int]()}
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
	n.value = int(math.Max(-farOff, math.Min(farOff, f)))
	return nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
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

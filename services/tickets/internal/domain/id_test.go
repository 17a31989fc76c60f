package domain

import (
	"testing"

	"sharedworld.dev/pkg/problem"
)

func TestParseTicketID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"§1 well-formed id", "tkt_0a1b2c3d", true},
		{"§1 uppercase hex is not an id: 404", "tkt_0A1B2C3D", false},
		{"§1 other prefix: 404", "prop_0a1b2c3d", false},
		{"§1 too short: 404", "tkt_0a1b2c3", false},
		{"§1 too long: 404", "tkt_0a1b2c3d4", false},
		{"§1 not hex: 404", "tkt_0a1b2c3g", false},
		{"§1 empty: 404", "", false},
		{"§1 an operator-looking value is just an unknown id", `{"$ne":null}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := ParseTicketID(tt.in)
			if !tt.ok {
				wantProblem(t, err, problem.KindNotFound, "")
				return
			}
			if err != nil || string(id) != tt.in {
				t.Fatalf("ParseTicketID(%q) = %q, %v", tt.in, id, err)
			}
		})
	}
}

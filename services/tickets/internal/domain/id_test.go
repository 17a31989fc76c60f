package domain

import (
	"bytes"
	"regexp"
	"testing"

	"sharedworld.dev/pkg/problem"
)

func TestNewTicketID(t *testing.T) {
	t.Parallel()
	shape := regexp.MustCompile(`^tkt_[0-9a-f]{8}$`)
	id, err := NewTicketID(bytes.NewReader([]byte{0x0a, 0x1b, 0x2c, 0x3d}))
	if err != nil || id != "tkt_0a1b2c3d" {
		t.Fatalf("§1 NewTicketID = %q, %v; want tkt_0a1b2c3d", id, err)
	}
	seen := map[TicketID]bool{}
	for range 100 {
		id, err := NewTicketID(nil)
		if err != nil || !shape.MatchString(string(id)) {
			t.Fatalf("§1 NewTicketID = %q, %v; want tkt_ + 8 lowercase hex", id, err)
		}
		seen[id] = true
	}
	if len(seen) < 99 {
		t.Fatalf("§1 100 random ids gave only %d distinct", len(seen))
	}
	if _, err := NewTicketID(bytes.NewReader(nil)); err == nil {
		t.Fatal("an exhausted random source must be an error, not a fixed id")
	}
}

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

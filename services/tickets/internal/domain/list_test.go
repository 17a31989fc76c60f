package domain

import (
	"slices"
	"testing"
	"time"
)

func TestPositionOrder(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		p, q Position
		want bool
	}{
		{"§5 newer created_at comes first", Position{t0.Add(time.Millisecond), "tkt_00000001"}, Position{t0, "tkt_ffffffff"}, true},
		{"§5 older created_at comes later", Position{t0, "tkt_ffffffff"}, Position{t0.Add(time.Millisecond), "tkt_00000001"}, false},
		{"§1 same millisecond: greater id first", Position{t0, "tkt_00000002"}, Position{t0, "tkt_00000001"}, true},
		{"§1 same millisecond: smaller id later", Position{t0, "tkt_00000001"}, Position{t0, "tkt_00000002"}, false},
		{"§1 a position does not precede itself", Position{t0, "tkt_00000001"}, Position{t0, "tkt_00000001"}, false},
		{"§1 instants compare across zones", Position{t0.In(time.FixedZone("", 3600)), "tkt_00000002"}, Position{t0, "tkt_00000001"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Precedes(tt.q); got != tt.want {
				t.Fatalf("%v.Precedes(%v) = %v, want %v", tt.p, tt.q, got, tt.want)
			}
		})
	}
}

func TestPositionIsATotalOrder(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	ps := []Position{{t0, "tkt_00000003"}, {t0.Add(time.Second), "tkt_00000001"}, {t0, "tkt_00000009"}, {t0.Add(-time.Second), "tkt_0000000f"}}
	slices.SortFunc(ps, func(a, b Position) int {
		switch {
		case a.Precedes(b):
			return -1
		case b.Precedes(a):
			return 1
		}
		return 0
	})
	want := []TicketID{"tkt_00000001", "tkt_00000009", "tkt_00000003", "tkt_0000000f"}
	for i, p := range ps {
		if p.ID != want[i] {
			t.Fatalf("§5 order = %v, want ids %v", ps, want)
		}
	}
}

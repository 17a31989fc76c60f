package messages

import (
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"sharedworld.dev/proto/catalog"
	identityv1 "sharedworld.dev/proto/identity/v1"
	"sharedworld.dev/services/identity/internal/domain"
)

func TestOutbox(t *testing.T) {
	at := time.Date(2026, 11, 22, 9, 15, 3, 127_000_000, time.UTC)
	cases := []struct {
		name string
		in   domain.Event
		typ  string
		want proto.Message
	}{
		{"registered", domain.Registered{AgentID: "emb_a", Name: "Ada", Number: 7, RegisteredAt: at, DirectoryVisible: true, Version: 1},
			catalog.TypeCitizenRegistered, &identityv1.CitizenRegistered{AgentId: "emb_a", Name: "Ada", CitizenNumber: 7, DirectoryVisible: true, Version: 1}},
		{"updated", domain.Updated{AgentID: "emb_a", Name: "Eva", UpdatedAt: at, Version: 2},
			catalog.TypeCitizenUpdated, &identityv1.CitizenUpdated{AgentId: "emb_a", Name: "Eva", Version: 2}},
		{"tombstoned", domain.Tombstoned{AgentID: "emb_a", TombstonedAt: at, Version: 3},
			catalog.TypeCitizenTombstoned, &identityv1.CitizenTombstoned{AgentId: "emb_a", Version: 3}},
	}
	for _, c := range cases {
		e, err := Outbox(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if e.Type != c.typ || e.Subject != "emb_a" || e.Source != Source || !e.Time.Equal(at) {
			t.Fatalf("%s: envelope %s %s %s %s", c.name, e.Type, e.Subject, e.Source, e.Time)
		}
		m, err := e.Decode()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		// The timestamps are compared through the envelope's time above.
		switch m := m.(type) {
		case *identityv1.CitizenRegistered:
			if !m.GetRegisteredAt().AsTime().Equal(at) {
				t.Fatalf("%s: registered_at %v", c.name, m.GetRegisteredAt().AsTime())
			}
			m.RegisteredAt = nil
		case *identityv1.CitizenUpdated:
			m.UpdatedAt = nil
		case *identityv1.CitizenTombstoned:
			m.TombstonedAt = nil
		}
		if !proto.Equal(m, c.want) {
			t.Fatalf("%s: payload %v, want %v", c.name, m, c.want)
		}
	}
}

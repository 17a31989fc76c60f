package messages

import (
	"testing"
	"time"

	"sharedworld.dev/proto/catalog"
	plotsv1 "sharedworld.dev/proto/plots/v1"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

type unknownEvent struct{ domain.PlotClaimed }

func TestOutboxTranslatesEveryDomainEvent(t *testing.T) {
	at := time.Date(2026, 11, 22, 9, 15, 3, 127e6, time.UTC)
	cell := domain.Coordinates{X: 3, Y: 4}
	evs, err := Outbox([]domain.Event{
		domain.PlotClaimed{PlotID: "plot_x3_y4", Cell: cell, Owner: "ada", DisplayName: "Ada", At: at, Version: 1},
		domain.PlotReleased{PlotID: "plot_x3_y4", Cell: cell, Owner: "ada", At: at, Version: 2},
		domain.GardenChanged{Verb: domain.Planted, Path: "/garden/ada/a.md", AgentID: "ada", Files: 1, At: at},
		domain.GardenChanged{Verb: domain.Tended, Path: "/garden/index.md", AgentID: "ada", Files: 1, At: at},
		domain.GardenRemoved{Path: "/garden/ada/a.md", Role: domain.RoleAmbassador, PlantedBy: "ada", Files: 0, At: at},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ typ, subject string }{
		{catalog.TypePlotClaimed, "plot_x3_y4"}, {catalog.TypePlotReleased, "plot_x3_y4"},
		{catalog.TypeGardenPlanted, domain.CommonsPlotID}, {catalog.TypeGardenTended, domain.CommonsPlotID},
		{catalog.TypeGardenRemoved, domain.CommonsPlotID},
	}
	if len(evs) != len(want) {
		t.Fatalf("%d messages for %d events", len(evs), len(want))
	}
	for i, w := range want {
		if evs[i].Type != w.typ || evs[i].Subject != w.subject || evs[i].Source != Source {
			t.Fatalf("message %d: %s about %s from %s, want %s about %s", i, evs[i].Type, evs[i].Subject, evs[i].Source, w.typ, w.subject)
		}
	}
	m, err := evs[1].Decode()
	if err != nil {
		t.Fatal(err)
	}
	if r := m.(*plotsv1.PlotReleased); r.GetX() != 3 || r.GetY() != 4 || r.GetVersion() != 2 || !r.GetReleasedAt().AsTime().Equal(at) {
		t.Fatalf("plot.released payload: %v", r)
	}
	m, err = evs[4].Decode()
	if err != nil {
		t.Fatal(err)
	}
	if r := m.(*plotsv1.GardenRemoved); r.GetPath() != "/garden/ada/a.md" || r.GetRole() != "ambassador" ||
		r.GetAgentId() != "" || r.GetPlantedBy() != "ada" || r.GetGardenFiles() != 0 || !r.GetAt().AsTime().Equal(at) {
		t.Fatalf("garden.removed payload: %v", r)
	}
	if _, err := Outbox([]domain.Event{unknownEvent{}}); err == nil {
		t.Fatal("an event without a catalog message must be an error, not dropped")
	}
}

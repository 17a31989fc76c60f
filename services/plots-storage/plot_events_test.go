package plotsstorage_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/proto/catalog"
	plotsv1 "sharedworld.dev/proto/plots/v1"
)

func TestPlotEventsReachKafka(t *testing.T) {
	w := newWorld(t)
	log := w.watchPlots(t)
	ada := w.citizen("Ada")
	id := w.claim(t, ada, 8, 1)
	w.do(t, http.MethodPost, "/api/world/plots/abandon", nil, ada.Headers()).ExpectStatus(t, 200)

	claimed := log.waitFor(t, catalog.TypePlotClaimed, 2) // the commons and Ada's
	byID := map[string]*plotsv1.PlotClaimed{}
	for _, e := range claimed {
		m, err := e.Decode()
		if err != nil {
			t.Fatal(err)
		}
		pc := m.(*plotsv1.PlotClaimed)
		byID[pc.GetPlotId()] = pc
		if e.Subject != pc.GetPlotId() || e.Source != "/services/plots-storage" {
			t.Fatalf("§events keyed by plot id: subject %s source %s", e.Subject, e.Source)
		}
	}
	if c := byID["plot_0_0"]; c == nil || c.GetOwnerAgentId() != "system_commons" || c.GetDisplayName() != "The Commons" {
		t.Fatalf("§4 the commons' claim event: %v", c)
	}
	if c := byID[id]; c == nil || c.GetX() != 8 || c.GetY() != 1 || c.GetOwnerAgentId() != ada.ID || c.GetDisplayName() != "Ada" || c.GetVersion() != 1 {
		t.Fatalf("§4 plot.claimed payload: %v", c)
	}
	released := log.waitFor(t, catalog.TypePlotReleased, 1)
	m, _ := released[0].Decode()
	if pr := m.(*plotsv1.PlotReleased); pr.GetPlotId() != id || pr.GetOwnerAgentId() != ada.ID || pr.GetVersion() != 2 {
		t.Fatalf("§4 plot.released payload: %v", pr)
	}
}

// TestReclaimOfAReleasedCell: a released cell is claimed again by exactly one
// of several racing citizens, and the cell's events keep their order and a
// rising version (consumers drop older versions, so a restart at 1 would lose
// the new claim).
func TestReclaimOfAReleasedCell(t *testing.T) {
	w := newWorld(t)
	log := w.watchPlots(t)
	first := w.citizen("First")
	id := w.claim(t, first, 6, 9)
	w.do(t, http.MethodPost, "/api/world/plots/abandon", nil, first.Headers()).ExpectStatus(t, 200)

	racers := make([]testkit.Agent, 10)
	for i := range racers {
		racers[i] = w.citizen(fmt.Sprint("R", i))
	}
	statuses := concurrently(len(racers), func(i int) int {
		return w.do(t, http.MethodPost, "/api/world/plots/claim", map[string]any{"x": 6, "y": 9}, racers[i].Headers()).Status
	})
	if count(statuses, 201) != 1 || count(statuses, 409) != 9 {
		t.Fatalf("§4 re-claim race: %v, want one 201 and nine 409", statuses)
	}
	owner := w.do(t, http.MethodGet, "/api/world/plots/"+id, nil, nil).Body["plot"].(map[string]any)["owner_agent_id"]

	var got []string
	testkit.Eventually(t, 20*time.Second, "claimed, released, claimed for the cell", func() bool {
		log.mu.Lock()
		defer log.mu.Unlock()
		got = got[:0]
		for _, e := range log.got {
			if e.Subject != id {
				continue
			}
			m, _ := e.Decode()
			switch ev := m.(type) {
			case *plotsv1.PlotClaimed:
				got = append(got, fmt.Sprintf("claimed v%d by %s", ev.GetVersion(), ev.GetOwnerAgentId()))
			case *plotsv1.PlotReleased:
				got = append(got, fmt.Sprintf("released v%d", ev.GetVersion()))
			}
		}
		return len(got) >= 3
	})
	want := []string{"claimed v1 by " + first.ID, "released v2", fmt.Sprintf("claimed v3 by %s", owner)}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("§4 events of a re-claimed cell: %v, want %v", got, want)
	}
}

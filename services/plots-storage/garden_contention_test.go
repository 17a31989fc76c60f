package plotsstorage_test

import (
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/proto/catalog"
	plotsv1 "sharedworld.dev/proto/plots/v1"
	"sharedworld.dev/services/plots-storage/internal/app"
	"sharedworld.dev/services/plots-storage/internal/domain"
	"sharedworld.dev/services/plots-storage/internal/store"
)

// gardenAccountChanges is how often the garden's own usage account (the
// document every planting once changed twice) has been written.
func gardenAccountChanges(t *testing.T, w *world) int64 {
	t.Helper()
	var doc struct {
		Version int64 `bson:"version"`
	}
	err := w.kit.DB.Collection("plot_usage").FindOne(w.kit.Ctx(), bson.M{"_id": domain.CommonsTenancy}).Decode(&doc)
	if err != nil && err.Error() != "mongo: no documents in result" {
		t.Fatal(err)
	}
	return doc.Version
}

// onlyLanded: the holds an account still records take room only (a
// landed write's or grant's, confirmed with the account's next change).
func onlyLanded(acc domain.Account) bool {
	for _, h := range acc.Holds {
		if h.Frees != (domain.Change{}) || h.Change.Files < 0 || h.Change.Bytes < 0 {
			return false
		}
	}
	return true
}

// Planters planting at once each change their own share; the garden's
// account changes only when a share draws a grant (a block of room), not
// once or twice per planting, so plantings by different citizens do not
// queue on one document. Every rule stays exact: each planting counted
// once on its share, the garden's grants cover what is planted, and the
// last garden event counts every file.
func TestPlantersDoNotQueueOnTheGardenAccount(t *testing.T) {
	w := newWorld(t)
	log := w.watchPlots(t)
	const planters, each = 16, 8
	agents := make([]testkit.Agent, planters)
	for i := range agents {
		agents[i] = w.citizen(fmt.Sprintf("P%02d", i))
	}
	before := gardenAccountChanges(t, w)
	statuses := concurrently(planters, func(i int) int {
		for j := range each {
			r := w.write(t, agents[i], commons, fmt.Sprintf("/garden/p%02d/%d.md", i, j), []byte("seed"))
			if r.Status != 201 {
				return r.Status
			}
		}
		return 201
	})
	if count(statuses, 201) != planters {
		t.Fatalf("planters answered %v, want every planting 201", statuses)
	}
	changes := gardenAccountChanges(t, w) - before
	grants := int64(planters * ((each + domain.GrantFiles) / (1 + domain.GrantFiles))) // ceil(each / (1+slack)) per planter
	t.Logf("%d plantings by %d planters changed the garden's account %d times", planters*each, planters, changes)
	if changes > 2*grants {
		t.Fatalf("%d plantings changed the garden's account %d times; want at most %d (a grant's hold and its confirmation per block)",
			planters*each, changes, 2*grants)
	}

	usage := store.NewUsage(mongox.NewDB(w.kit.DB.Database, w.kit.DB.Mode()))
	var granted domain.Usage
	for _, a := range agents {
		acc, err := usage.Read(w.kit.Ctx(), app.ShareAccount(a.ID))
		if err != nil || acc.Usage != (domain.Usage{Files: each, Bytes: 4 * each}) || !onlyLanded(acc) {
			t.Fatalf("%s's share: %+v %v, want %d files of 4 bytes and no hold but a landed write's", a.Name, acc, err, each)
		}
		granted.Apply(domain.Change(acc.Granted))
	}
	garden, err := usage.Read(w.kit.Ctx(), domain.CommonsTenancy)
	if err != nil || garden.Usage != granted || !onlyLanded(garden) {
		t.Fatalf("the garden's account %+v %v counts exactly what the shares were granted (%+v)", garden, err, granted)
	}
	// The bulletin keeps the count of the latest-dated event: every date
	// apart, and the latest one counts every planting.
	var latest *plotsv1.GardenPlanted
	dates := map[time.Time]bool{}
	for _, e := range log.waitFor(t, catalog.TypeGardenPlanted, planters*each) {
		m, err := e.Decode()
		if err != nil {
			t.Fatal(err)
		}
		p := m.(*plotsv1.GardenPlanted)
		if dates[p.GetAt().AsTime()] {
			t.Fatalf("two plantings dated %v", p.GetAt().AsTime())
		}
		dates[p.GetAt().AsTime()] = true
		if latest == nil || p.GetAt().AsTime().After(latest.GetAt().AsTime()) {
			latest = p
		}
	}
	if latest.GetGardenFiles() != planters*each {
		t.Fatalf("the latest garden event counts %d files, want %d", latest.GetGardenFiles(), planters*each)
	}
}

// Citizens tending the index at once go in turn: each holds its room once
// and lands, instead of holding it, meeting another's head, giving it back
// and trying again.
func TestIndexTendersDoNotCollide(t *testing.T) {
	w := newWorld(t)
	const tenders = 16
	agents := make([]testkit.Agent, tenders)
	for i := range agents {
		agents[i] = w.citizen(fmt.Sprintf("T%02d", i))
	}
	w.write(t, agents[0], commons, domain.GardenIndexPath, []byte("# garden")).ExpectStatus(t, 201)
	before := gardenAccountChanges(t, w)
	statuses := concurrently(tenders, func(i int) int {
		return w.write(t, agents[i], commons, domain.GardenIndexPath, []byte(fmt.Sprintf("# tended by %02d", i))).Status
	})
	if count(statuses, 201) != tenders {
		t.Fatalf("tends answered %v, want all 201", statuses)
	}
	changes := gardenAccountChanges(t, w) - before
	t.Logf("%d tends of the index changed the garden's account %d times", tenders, changes)
	if changes > tenders {
		t.Fatalf("%d tends changed the garden's account %d times; want one hold each (%d), nothing given back", tenders, changes, tenders)
	}
}

// A new planter's first planting draws its share's first grant: one write
// of the garden's account (the grant's hold), not that and its
// confirmation one after the other; the confirmation rides on the
// account's next change.
func TestFirstPlantingWritesTheGardenAccountOnce(t *testing.T) {
	w := newWorld(t)
	first := w.citizen("First")
	w.write(t, first, commons, "/garden/first/0.md", []byte("seed")) // the garden's account exists
	for i := range 3 {
		planter := w.citizen(fmt.Sprintf("New%d", i))
		before := gardenAccountChanges(t, w)
		if r := w.write(t, planter, commons, fmt.Sprintf("/garden/new%d/0.md", i), []byte("seed")); r.Status != 201 {
			t.Fatalf("first planting answered %d", r.Status)
		}
		if changes := gardenAccountChanges(t, w) - before; changes != 1 {
			t.Fatalf("a first planting changed the garden's account %d times, want 1", changes)
		}
	}
}

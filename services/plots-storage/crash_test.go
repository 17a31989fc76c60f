package plotsstorage_test

import (
	"bytes"
	"testing"
	"time"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/proto/catalog"
	plotsv1 "sharedworld.dev/proto/plots/v1"
	plotsstorage "sharedworld.dev/services/plots-storage"
	"sharedworld.dev/services/plots-storage/internal/app"
	"sharedworld.dev/services/plots-storage/internal/domain"
	"sharedworld.dev/services/plots-storage/internal/store"
)

// strand does what a write does up to its quota reservation and then
// "dies": the reservation is stored on the account (a plot's tenancy, or a
// garden planter's share, with the garden's count moved), the file never is.
func strand(t *testing.T, w *world, plotID, account, path string, change domain.Change) domain.Hold {
	t.Helper()
	hold := domain.Hold{ID: "hold_" + path, PlotID: plotID, Path: path, Change: change, Until: w.clock.Now().Add(domain.HoldLife)}
	usage := plotsstorage.UsageStore(w.deps.DB)
	if plotID == commons {
		moveTally(t, w, change.Files)
	}
	if _, err := usage.Account(w.kit.Ctx(), account, func(a *domain.Account) error {
		if plotID != commons {
			return a.Reserve(hold)
		}
		short, err := a.ReserveShare(hold, domain.OwnShare)
		if err == nil && short != (domain.Change{}) {
			t.Errorf("the share's grant should cover the stranded planting, short %+v", short)
		}
		return err
	}); err != nil {
		t.Fatalf("reserve: %v", err)
	}
	return hold
}

// land goes one step further than strand: the file's head lands, naming
// the hold, and the process dies before it confirms the hold.
func land(t *testing.T, w *world, plotID, account, path string, change domain.Change) {
	t.Helper()
	hold := strand(t, w, plotID, account, path, change)
	tenancy := account
	if plotID == commons {
		tenancy = domain.CommonsTenancy
	}
	files := plotsstorage.FilesStore(w.deps.DB)
	if _, err := files.Change(w.kit.Ctx(), plotID, tenancy, path, func(f *domain.File) ([]domain.Event, error) {
		f.Size, f.WrittenAt, f.Hold = change.Bytes, w.clock.Now(), hold.ID
		return nil, nil
	}); err != nil {
		t.Fatalf("land: %v", err)
	}
}

// plantings are the garden_files of the first n garden.planted events.
func plantings(t *testing.T, log *eventLog, n int) []int64 {
	t.Helper()
	var files []int64
	for _, e := range log.waitFor(t, catalog.TypeGardenPlanted, n) {
		m, err := e.Decode()
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m.(*plotsv1.GardenPlanted).GetGardenFiles())
	}
	return files
}

// restart builds the service anew on the same database, as a process
// started after a kill -9 would, and serves through it from then on.
func (w *world) restart(t *testing.T) {
	t.Helper()
	svc, err := plotsstorage.New(w.kit.Ctx(), w.deps, plotsstorage.Options{Seal: cheapSeal})
	if err != nil {
		t.Fatal(err)
	}
	w.kit.Run(svc)
	w.svc, w.app = svc, w.kit.App(svc)
}

// A write that died between its quota reservation and its file (kill -9)
// leaves no trace in the counters once the world has moved on: the next
// garden event counts the garden files stored, and a citizen's plot takes
// exactly its quota. On the exclusive backend the restart alone settles it
// (nothing else writes); replicas sharing a database settle a reservation
// once it has lapsed, since until then its writer may still be alive.
func TestReservationCutOffByACrashIsGivenBack(t *testing.T) {
	w := newWorld(t)
	log := w.watchPlots(t)
	ada := w.citizen("Ada")
	id := w.claim(t, ada, 2, 5)
	plot, err := store.NewPlots(w.deps.DB, mongox.NopNotifier{}).Get(w.kit.Ctx(), id)
	if err != nil {
		t.Fatal(err)
	}
	if v := verb(t, w.write(t, ada, commons, "/garden/ada/one.md", []byte("one"))); v != "planted" {
		t.Fatalf("planted, got %q", v)
	}
	for i := range 9 {
		w.write(t, ada, id, "/fill/"+string(rune('a'+i)), bytes.Repeat([]byte{'f'}, mib)).ExpectStatus(t, 201)
	}

	strand(t, w, commons, app.ShareAccount(ada.ID), "/garden/ada/lost.md", domain.Change{Bytes: 4, Files: 1})
	strand(t, w, id, plot.Tenancy, "/lost", domain.Change{Bytes: mib, Files: 1})
	w.restart(t)
	if testkit.Mode() == mongox.Shared {
		// Another replica may still be writing under these reservations.
		w.write(t, ada, id, "/last", bytes.Repeat([]byte{'l'}, mib)).ExpectError(t, 413, "payload_too_large")
		w.clock.Set(w.clock.Now().Add(10 * time.Minute))
	}

	if v := verb(t, w.write(t, ada, commons, "/garden/ada/two.md", []byte("two"))); v != "planted" {
		t.Fatalf("planted, got %q", v)
	}
	if files := plantings(t, log, 2); files[0] != 1 || files[1] != 2 {
		t.Fatalf("garden_files of the plantings before and after the crash: %v, want [1 2] (two files stored)", files)
	}
	// 9 MiB stored: the last MiB of the quota is free again.
	w.write(t, ada, id, "/last", bytes.Repeat([]byte{'l'}, mib)).ExpectStatus(t, 201)
	if used, n := listedBytes(t, w, ada, id); used != 10*mib || n != 10 {
		t.Fatalf("stored %d bytes in %d files, want 10 MiB in 10", used, n)
	}
	w.write(t, ada, id, "/over", []byte{1}).ExpectError(t, 413, "payload_too_large")
}

// A write that died after its file landed but before it confirmed its hold
// keeps its room: the head names the hold, and a write that overwrites the
// head confirms the hold it read, so it is not taken for a lost one.
func TestHoldOfALandedWriteKeepsItsRoom(t *testing.T) {
	w := newWorld(t)
	log := w.watchPlots(t)
	ada := w.citizen("Ada")
	id := w.claim(t, ada, 4, 1)
	plot, err := store.NewPlots(w.deps.DB, mongox.NopNotifier{}).Get(w.kit.Ctx(), id)
	if err != nil {
		t.Fatal(err)
	}
	verb(t, w.write(t, ada, commons, "/garden/ada/one.md", []byte("one")))
	for i := range 8 {
		w.write(t, ada, id, "/fill/"+string(rune('a'+i)), bytes.Repeat([]byte{'f'}, mib)).ExpectStatus(t, 201)
	}

	land(t, w, commons, app.ShareAccount(ada.ID), "/garden/ada/kept.md", domain.Change{Bytes: 4, Files: 1})
	land(t, w, id, plot.Tenancy, "/landed", domain.Change{Bytes: mib, Files: 1})
	w.write(t, ada, id, "/landed", bytes.Repeat([]byte{'o'}, mib)).ExpectStatus(t, 201)
	w.restart(t)
	if testkit.Mode() == mongox.Shared {
		w.clock.Set(w.clock.Now().Add(10 * time.Minute))
	}

	verb(t, w.write(t, ada, commons, "/garden/ada/two.md", []byte("two")))
	if files := plantings(t, log, 2); files[0] != 1 || files[1] != 3 {
		t.Fatalf("garden_files of the plantings before and after the crash: %v, want [1 3] (three files stored)", files)
	}
	w.write(t, ada, id, "/last", bytes.Repeat([]byte{'l'}, mib)).ExpectStatus(t, 201)
	if used, n := listedBytes(t, w, ada, id); used != 10*mib || n != 10 {
		t.Fatalf("stored %d bytes in %d files, want 10 MiB in 10", used, n)
	}
	w.write(t, ada, id, "/over", []byte{1}).ExpectError(t, 413, "payload_too_large")
}

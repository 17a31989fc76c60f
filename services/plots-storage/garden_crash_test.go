package plotsstorage_test

import (
	"fmt"
	"testing"
	"time"

	plotsstorage "sharedworld.dev/services/plots-storage"
	"sharedworld.dev/services/plots-storage/internal/app"
	"sharedworld.dev/services/plots-storage/internal/domain"
	"sharedworld.dev/services/plots-storage/internal/store"
)

// cutRemoval does what a garden removal does up to its head and "dies":
// the removal's hold is recorded on the planter's share and the garden's
// count moved, and, when landed, the head is marked removed naming it;
// nothing is confirmed.
func cutRemoval(t *testing.T, w *world, planter, path string, landed bool) {
	t.Helper()
	ctx := w.kit.Ctx()
	files := plotsstorage.FilesStore(w.deps.DB)
	cur, err := files.Head(ctx, domain.CommonsPlotID, domain.CommonsTenancy, path)
	if err != nil || !cur.Exists() {
		t.Fatalf("head of %s: %+v %v", path, cur, err)
	}
	hold := domain.Hold{ID: "hold_rm_" + path, PlotID: domain.CommonsPlotID, Path: path,
		Frees: domain.DeleteChange(cur.Size), Until: w.clock.Now().Add(domain.HoldLife)}
	usage := plotsstorage.UsageStore(w.deps.DB)
	if _, err := usage.Account(ctx, app.ShareAccount(planter), func(a *domain.Account) error {
		a.Confirm(cur.Hold)
		_, err := a.ReserveShare(hold, domain.OwnShare)
		return err
	}); err != nil {
		t.Fatalf("record the removal: %v", err)
	}
	moveTally(t, w, -1)
	if !landed {
		return
	}
	if _, err := files.Change(ctx, domain.CommonsPlotID, domain.CommonsTenancy, path, func(f *domain.File) ([]domain.Event, error) {
		f.Removed, f.Hold, f.Size, f.BlobID = true, hold.ID, 0, ""
		return nil, nil
	}); err != nil {
		t.Fatalf("land the removal: %v", err)
	}
}

// A removal cut off by a crash (kill -9) after its head landed frees the
// planting's room exactly once, in the garden and in its planter's share;
// one cut off before its head frees nothing. On the exclusive backend the
// restart settles it; on a shared one the holds settle once they lapse.
func TestGardenRemovalCutOffByACrashFreesItsShareOnce(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	for i := range domain.ShareMaxFiles {
		w.write(t, ada, commons, fmt.Sprintf("/garden/ada/%03d.md", i), []byte("x")).ExpectStatus(t, 201)
	}
	cutRemoval(t, w, ada.ID, "/garden/ada/000.md", true)
	cutRemoval(t, w, ada.ID, "/garden/ada/001.md", false)
	w.restart(t)
	w.clock.Set(w.clock.Now().Add(domain.HoldLife + domain.HoldGrace + time.Second))

	w.read(t, nil, commons, "/garden/ada/000.md").ExpectError(t, 404, "not_found")
	w.read(t, nil, commons, "/garden/ada/001.md").ExpectStatus(t, 200)
	w.write(t, ada, commons, "/garden/ada/new.md", []byte("x")).ExpectStatus(t, 201)
	w.write(t, ada, commons, "/garden/ada/newer.md", []byte("x")).ExpectError(t, 413, "payload_too_large")

	// Planting the removed path again is a new planting, counted once.
	w.removeOwn(t, ada, "/garden/ada/new.md").ExpectStatus(t, 200)
	w.write(t, ada, commons, "/garden/ada/000.md", []byte("again")).ExpectStatus(t, 201)
	w.write(t, ada, commons, "/garden/ada/newer.md", []byte("x")).ExpectError(t, 413, "payload_too_large")
	usage := store.NewUsage(w.deps.DB)
	share, err := usage.Read(w.kit.Ctx(), app.ShareAccount(ada.ID))
	if err != nil || share.Usage != (domain.Usage{Bytes: domain.ShareMaxFiles + 4, Files: domain.ShareMaxFiles}) || !onlyLanded(share) {
		t.Fatalf("share %+v %v, want %d files of %d bytes", share, err, domain.ShareMaxFiles, domain.ShareMaxFiles+4)
	}
	garden, err := usage.Read(w.kit.Ctx(), domain.CommonsTenancy)
	if err != nil || garden.Usage != share.Granted || !onlyLanded(garden) ||
		share.Granted.Files-share.Files > domain.GrantFiles || share.Granted.Bytes-share.Bytes > domain.GrantBytes {
		t.Fatalf("the garden %+v %v counts the share's grant %+v, which covers its use with at most a grant's slack", garden, err, share.Granted)
	}
}

// moveTally moves the garden's count as a write's hold does: the document
// on a shared database (the exclusive backend counts the garden at start).
func moveTally(t *testing.T, w *world, files int64) {
	t.Helper()
	if _, err := plotsstorage.UsageStore(w.deps.DB).Account(w.kit.Ctx(), store.GardenTallyAccount, func(a *domain.Account) error {
		a.Files += files
		return nil
	}); err != nil {
		t.Fatalf("move the garden's count: %v", err)
	}
}

// Plantings racing at the edge of a share: exactly the room left is taken.
func TestGardenShareHoldsUnderConcurrentPlantings(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	const left, racers = 5, 20
	for i := range domain.ShareMaxFiles - left {
		w.write(t, ada, commons, fmt.Sprintf("/garden/ada/%03d.md", i), nil).ExpectStatus(t, 201)
	}
	statuses := concurrently(racers, func(i int) int {
		return w.write(t, ada, commons, fmt.Sprintf("/garden/ada/race-%02d.md", i), nil).Status
	})
	if count(statuses, 201) != left || count(statuses, 413) != racers-left {
		t.Fatalf("racing plantings answered %v; want %d × 201 and the rest 413", statuses, left)
	}
}

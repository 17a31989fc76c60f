package store

import (
	"testing"
	"time"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/plots-storage/internal/app"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// A removal's hold keeps what it frees across a read (a restart), and a
// removed garden head is kept, read back as removed, and left out of
// listings; writing the path again brings it back. Run against both
// adapters in both modes.
func TestGardenRemovalRecords(t *testing.T) {
	testkit.EachAdapter(t, newGardenStores(newMongoUsage, newMongoFiles), newGardenStores(newMirroredUsage, newMirroredFiles),
		testGardenRemovalRecords)
}

// gardenStores are the usage and files adapters of one backend.
type gardenStores struct {
	usage app.Usage
	files filesAdapter
}

func newGardenStores(usage func(*mongox.DB) app.Usage, files func(*mongox.DB) filesAdapter) func(*mongox.DB) gardenStores {
	return func(db *mongox.DB) gardenStores { return gardenStores{usage(db), files(db)} }
}

func testGardenRemovalRecords(t *testing.T, kit *testkit.Kit, open func() gardenStores) {
	ctx := kit.Ctx()
	until := time.Date(2026, 11, 22, 9, 16, 3, 127e6, time.UTC)
	usage := open().usage
	hold := domain.Hold{ID: "hold_rm", PlotID: domain.CommonsPlotID, Path: "/garden/a/x.md",
		Frees: domain.DeleteChange(7), Until: until}
	if _, err := usage.Account(ctx, "garden_share:ada", func(a *domain.Account) error {
		a.Usage = domain.Usage{Bytes: 7, Files: 1}
		return a.ReserveWithin(hold, domain.OwnShare)
	}); err != nil {
		t.Fatal(err)
	}
	acc, err := open().usage.Account(ctx, "garden_share:ada", func(a *domain.Account) error {
		if len(a.Holds) != 1 || a.Holds[0].Frees != domain.DeleteChange(7) || a.Usage.Files != 1 {
			t.Errorf("the removal's hold read back as %+v", a)
		}
		a.Confirm("hold_rm")
		return nil
	})
	if err != nil || acc.Usage != (domain.Usage{}) || len(acc.Holds) != 0 {
		t.Fatalf("confirmed removal: %+v %v", acc, err)
	}

	files := ensured(t, open().files)
	put := func(fn func(*domain.File)) domain.File {
		f, err := files.Change(ctx, domain.CommonsPlotID, domain.CommonsTenancy, "/garden/a/x.md", func(f *domain.File) ([]domain.Event, error) {
			fn(f)
			return nil, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	listed := func() int {
		fs, err := files.List(ctx, domain.CommonsPlotID, domain.CommonsTenancy, "/garden/")
		if err != nil {
			t.Fatal(err)
		}
		return len(fs)
	}
	put(func(f *domain.File) { f.Size, f.PlantedBy, f.Hold = 7, "ada", "h1" })
	if listed() != 1 {
		t.Fatal("a planting is listed")
	}
	put(func(f *domain.File) { f.Removed, f.Size, f.Hold = true, 0, "hold_rm" })
	head, err := files.Head(ctx, domain.CommonsPlotID, domain.CommonsTenancy, "/garden/a/x.md")
	if err != nil || !head.Removed || head.Exists() || head.Hold != "hold_rm" || head.PlantedBy != "ada" {
		t.Fatalf("removed head %+v %v", head, err)
	}
	if listed() != 0 {
		t.Fatal("a removed garden file is not listed")
	}
	put(func(f *domain.File) { f.Removed, f.PlantedBy = false, "bob" })
	if listed() != 1 {
		t.Fatal("a path planted again is listed again")
	}
}

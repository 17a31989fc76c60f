package store

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// TestFileLists writes files on several plots and tenancies (the commons'
// garden included) through each adapter, deletes one, ends a tenancy and
// removes orphans, and checks every listing by prefix (whole, and in pages
// after a path) against the files as the test keeps them, both on the
// adapter as written and on a second one opened on the stored files (as a
// restarted process opens them).
func TestFileLists(t *testing.T) {
	testkit.EachAdapter(t, newMongoFiles, newMirroredFiles, testFileLists)
}

func testFileLists(t *testing.T, kit *testkit.Kit, open func() filesAdapter) {
	ctx := kit.Ctx()
	written := ensured(t, open())
	type place struct{ plot, tenancy string }
	places := []place{{"plot_1_1", "t1"}, {"plot_1_1", "t0"}, {"plot_1_2", "t2"}, {"plot_12_1", "t3"}, {domain.CommonsPlotID, "commons"}}
	paths := []string{"/a.md", "/garden/x/one.md", "/garden/x/two.md", "/garden/y/one.md", "/notes/n.md", "/garden/index.md", "/z"}
	stored := map[place][]domain.File{} // each place's files, as written
	for i, p := range places {
		for j, path := range paths {
			if (i+j)%3 == 2 {
				continue
			}
			f, err := written.Change(ctx, p.plot, p.tenancy, path, grow("agent_w"))
			if err != nil {
				t.Fatal(err)
			}
			stored[p] = append(stored[p], f)
		}
	}
	if err := written.Delete(ctx, "plot_1_1", "t1", "/a.md", func(domain.File) error { return nil }); err != nil {
		t.Fatal(err)
	}
	stored[place{"plot_1_1", "t1"}] = slices.DeleteFunc(stored[place{"plot_1_1", "t1"}], func(f domain.File) bool { return f.Path == "/a.md" })
	// listed is what List must answer: the place's files with the prefix,
	// by path.
	listed := func(p place, prefix string) []domain.File {
		out := []domain.File{}
		for _, f := range stored[p] {
			if strings.HasPrefix(f.Path, prefix) {
				out = append(out, f)
			}
		}
		slices.SortFunc(out, func(a, b domain.File) int { return cmp.Compare(a.Path, b.Path) })
		return out
	}
	check := func(stage string) {
		t.Helper()
		for name, s := range map[string]filesAdapter{"as written": written, "opened on the stored files": ensured(t, open())} {
			for _, p := range append(places, place{"plot_9_9", "t9"}) {
				for _, prefix := range []string{"", "/", "/garden/", "/garden/x/", "/garden/x", "/n", "/zz"} {
					want := listed(p, prefix)
					got, err := s.List(ctx, p.plot, p.tenancy, prefix)
					if err != nil || !reflect.DeepEqual(got, want) {
						t.Fatalf("%s, %s: %v %q:\n got %v %v\nwant %v", stage, name, p, prefix, got, err, want)
					}
					for _, after := range []string{"", "/a.md", "/garden/x/one.md", "/zz"} {
						for _, limit := range []int{1, 100} {
							page := slices.DeleteFunc(slices.Clone(want), func(f domain.File) bool { return f.Path <= after })
							page = page[:min(limit, len(page))]
							got, n, err := s.ListPage(ctx, p.plot, p.tenancy, prefix, after, limit)
							if err != nil || n != len(want) || !reflect.DeepEqual(got, page) {
								t.Fatalf("%s, %s: %v %q after %q limit %d:\n got %d %v %v\nwant %d %v",
									stage, name, p, prefix, after, limit, n, got, err, len(want), page)
							}
						}
					}
				}
			}
		}
	}
	check("written")
	if err := written.DeleteTenancy(ctx, "plot_1_1", "t0"); err != nil {
		t.Fatal(err)
	}
	delete(stored, place{"plot_1_1", "t0"})
	check("after a tenancy ended")
	live := map[string]bool{"t1": true, "commons": true}
	var orphans int64
	for p, files := range stored {
		if !live[p.tenancy] && p.plot != domain.CommonsPlotID {
			orphans += int64(len(files))
			delete(stored, p)
		}
	}
	n, err := written.DeleteOrphans(ctx, live, time.Now().Add(time.Hour))
	if err != nil || n != orphans || n == 0 {
		t.Fatalf("orphans removed: %d %v, want %d", n, err, orphans)
	}
	check(fmt.Sprintf("after %d orphans went", n))
}

// TestListVersionMovesWithEveryChange: a kept list answer is the list only
// while its plot's version stays; every change of the plot's files moves
// it (a write, a delete, an ended tenancy, removed orphans), another plot's
// leaves it. The MongoDB adapter has no version to keep answers by: other
// replicas write without this process seeing it.
func TestListVersionMovesWithEveryChange(t *testing.T) {
	testkit.EachAdapter(t, newMongoFiles, newMirroredFiles, func(t *testing.T, kit *testkit.Kit, open func() filesAdapter) {
		_, mirrored := open().(*MirroredFiles)
		testListVersion(t, kit, ensured(t, open()), mirrored)
	})
}

func testListVersion(t *testing.T, kit *testkit.Kit, s filesAdapter, versioned bool) {
	ctx := kit.Ctx()
	version := func(plotID string) uint64 {
		t.Helper()
		v, ok, err := s.ListVersion(ctx, plotID)
		if err != nil || ok != versioned {
			t.Fatalf("ListVersion: ok %v, %v; want ok %v", ok, err, versioned)
		}
		return v
	}
	if !versioned {
		version("plot_1_1")
		return
	}
	changes := []struct {
		name, plotID string
		change       func() error
	}{
		{"a write", "plot_1_1", func() error { _, err := s.Change(ctx, "plot_1_1", "t1", "/a.md", grow("w")); return err }},
		{"another write", "plot_1_1", func() error { _, err := s.Change(ctx, "plot_1_1", "t1", "/b.md", grow("w")); return err }},
		{"a garden write", domain.CommonsPlotID, func() error {
			_, err := s.Change(ctx, domain.CommonsPlotID, "commons", "/garden/x/a.md", grow("w"))
			return err
		}},
		{"a delete", "plot_1_1", func() error {
			return s.Delete(ctx, "plot_1_1", "t1", "/a.md", func(domain.File) error { return nil })
		}},
		{"an ended tenancy", "plot_1_1", func() error { return s.DeleteTenancy(ctx, "plot_1_1", "t1") }},
		{"a write of the next tenancy", "plot_1_1", func() error { _, err := s.Change(ctx, "plot_1_1", "t2", "/c.md", grow("w")); return err }},
		{"removed orphans", "plot_1_1", func() error {
			_, err := s.DeleteOrphans(ctx, map[string]bool{}, time.Now().Add(time.Hour))
			return err
		}},
	}
	for _, c := range changes {
		other := "plot_5_5"
		if c.plotID == other {
			t.Fatal("the other plot must be another")
		}
		before, otherBefore := version(c.plotID), version(other)
		if err := c.change(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if version(c.plotID) == before {
			t.Fatalf("%s must move its plot's list version", c.name)
		}
		if version(other) != otherBefore {
			t.Fatalf("%s moved another plot's list version", c.name)
		}
	}
}

// Every mirrored adapter of a database shares its copies, and so the
// versions: a write through one moves the version another reads.
func TestListVersionIsSharedByEveryStoreOfTheDatabase(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	db := kit.ExclusiveDB()
	reader, writer := ensured(t, NewMirroredFiles(db, nil)), ensured(t, NewMirroredFiles(db, nil))
	before, _, err := reader.ListVersion(ctx, domain.CommonsPlotID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Change(ctx, domain.CommonsPlotID, "commons", "/garden/x/a.md", grow("w")); err != nil {
		t.Fatal(err)
	}
	if after, _, err := reader.ListVersion(ctx, domain.CommonsPlotID); err != nil || after == before {
		t.Fatalf("a write through another store left the version at %d (%v)", after, err)
	}
}

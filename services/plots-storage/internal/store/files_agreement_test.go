package store

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// TestFileListsAgreeWithTheQueryPath writes files on several plots and
// tenancies (the commons' garden included) through the store of the kit's
// mode, deletes one, ends a tenancy and removes orphans, and compares every
// listing by prefix (whole, and in pages after a path) with the MongoDB query path (a store on a shared handle
// of the same database) and with a store that loads the copy afresh.
func TestFileListsAgreeWithTheQueryPath(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	written := newFiles(t, kit.DB)
	type place struct{ plot, tenancy string }
	places := []place{{"plot_1_1", "t1"}, {"plot_1_1", "t0"}, {"plot_1_2", "t2"}, {"plot_12_1", "t3"}, {domain.CommonsPlotID, "commons"}}
	paths := []string{"/a.md", "/garden/x/one.md", "/garden/x/two.md", "/garden/y/one.md", "/notes/n.md", "/garden/index.md", "/z"}
	for i, p := range places {
		for j, path := range paths {
			if (i+j)%3 == 2 {
				continue
			}
			if _, err := written.Change(ctx, p.plot, p.tenancy, path, grow("agent_w")); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := written.Delete(ctx, "plot_1_1", "t1", "/a.md", func(domain.File) error { return nil }); err != nil {
		t.Fatal(err)
	}
	query := newFiles(t, mongox.NewDB(kit.DB.Database, mongox.Shared))
	compare := func(stage string) {
		t.Helper()
		reloaded := newFiles(t, mongox.NewDB(kit.DB.Database, kit.DB.Mode()))
		for name, s := range map[string]*Files{"as written": written, "loaded at start": reloaded} {
			for _, p := range append(places, place{"plot_9_9", "t9"}) {
				for _, prefix := range []string{"", "/", "/garden/", "/garden/x/", "/garden/x", "/n", "/zz"} {
					got, gerr := s.List(ctx, p.plot, p.tenancy, prefix)
					want, werr := query.List(ctx, p.plot, p.tenancy, prefix)
					if gerr != nil || werr != nil || !reflect.DeepEqual(got, want) {
						t.Fatalf("%s, %s: %v %q:\n got %v %v\nwant %v %v", stage, name, p, prefix, got, gerr, want, werr)
					}
					for _, after := range []string{"", "/a.md", "/garden/x/one.md", "/zz"} {
						for _, limit := range []int{1, 100} {
							got, gn, gerr := s.ListPage(ctx, p.plot, p.tenancy, prefix, after, limit)
							want, wn, werr := query.ListPage(ctx, p.plot, p.tenancy, prefix, after, limit)
							if gerr != nil || werr != nil || gn != wn || !reflect.DeepEqual(got, want) {
								t.Fatalf("%s, %s: %v %q after %q limit %d:\n got %d %v %v\nwant %d %v %v",
									stage, name, p, prefix, after, limit, gn, got, gerr, wn, want, werr)
							}
						}
					}
				}
			}
		}
	}
	compare("written")
	if err := written.DeleteTenancy(ctx, "plot_1_1", "t0"); err != nil {
		t.Fatal(err)
	}
	compare("after a tenancy ended")
	n, err := written.DeleteOrphans(ctx, map[string]bool{"t1": true, "commons": true}, time.Now().Add(time.Hour))
	if err != nil || n == 0 {
		t.Fatalf("orphans removed: %d %v", n, err)
	}
	compare(fmt.Sprintf("after %d orphans went", n))
}

// TestListVersionMovesWithEveryChange: a kept list answer is the list only
// while its plot's version stays; every change of the plot's files moves
// it (a write, a delete, an ended tenancy, removed orphans), another plot's
// leaves it. On a shared database there is no version to keep answers by.
func TestListVersionMovesWithEveryChange(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	s := newFiles(t, kit.DB)
	version := func(plotID string) uint64 {
		t.Helper()
		v, ok, err := s.ListVersion(ctx, plotID)
		if err != nil || ok != (kit.DB.Mode() == mongox.Exclusive) {
			t.Fatalf("ListVersion: ok %v, %v in mode %v", ok, err, kit.DB.Mode())
		}
		return v
	}
	if kit.DB.Mode() != mongox.Exclusive {
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

// Every Files of a database shares its copies, and so the versions: a
// write through one moves the version another reads.
func TestListVersionIsSharedByEveryStoreOfTheDatabase(t *testing.T) {
	kit := testkit.New(t)
	if kit.DB.Mode() != mongox.Exclusive {
		t.Log("a shared database keeps no list versions")
		return
	}
	ctx := kit.Ctx()
	reader, writer := newFiles(t, kit.DB), newFiles(t, kit.DB)
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

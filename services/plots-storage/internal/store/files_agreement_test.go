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
// listing by prefix with the MongoDB query path (a store on a shared handle
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

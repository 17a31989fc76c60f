package store

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// The start-up repair's reads (the tenancies holding files and content,
// the accounts holding quota) answer from memory on an exclusive database:
// they agree with the MongoDB query path and with a store that loads its
// copies afresh, before and after orphans are removed, and the repair
// removes the content of dead tenancies written before the cutoff only.
func TestRepairReadsAgreeWithTheQueryPath(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	written := newFiles(t, kit.DB)
	cutoff := time.Now().Add(-time.Minute)
	blobs := map[string]string{} // name → blob id
	for _, b := range []struct {
		name, tenancy string
		at            time.Time
	}{{"live", "t1", cutoff.Add(-time.Hour)}, {"dead", "t2", cutoff.Add(-time.Hour)}, {"dead-new", "t3", cutoff.Add(time.Second)},
		{"gone", "t4", cutoff.Add(-time.Hour)}, {"ended", "t5", cutoff.Add(-time.Hour)}, {"dead-too", "t2", cutoff.Add(-2 * time.Hour)}} {
		id, err := written.PutBlob(ctx, b.tenancy, []byte("content of "+b.name), b.at)
		if err != nil {
			t.Fatal(err)
		}
		blobs[b.name] = id
	}
	for _, p := range []struct{ plot, tenancy string }{{"plot_1_1", "t1"}, {"plot_1_2", "t2"}, {"plot_1_3", "t5"}} {
		if _, err := written.Change(ctx, p.plot, p.tenancy, "/a.md", grow("agent_w")); err != nil {
			t.Fatal(err)
		}
	}
	if err := written.DeleteBlob(ctx, blobs["gone"]); err != nil {
		t.Fatal(err)
	}
	if err := written.DeleteTenancy(ctx, "plot_1_3", "t5"); err != nil {
		t.Fatal(err)
	}
	query := newFiles(t, mongox.NewDB(kit.DB.Database, mongox.Shared))
	compare := func(stage string) {
		t.Helper()
		reloaded := newFiles(t, mongox.NewDB(kit.DB.Database, kit.DB.Mode()))
		for _, c := range []string{"files", "blobs"} {
			wantColl := query.blobs
			if c == "files" {
				wantColl = query.files.Collection()
			}
			want, werr := query.tenancies(ctx, wantColl)
			slices.Sort(want)
			for name, s := range map[string]*Files{"as written": written, "loaded at start": reloaded} {
				coll := s.blobs
				if c == "files" {
					coll = s.files.Collection()
				}
				got, gerr := s.tenancies(ctx, coll)
				if gerr != nil || werr != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, %s: tenancies of %s: got %v %v, want %v %v", stage, name, c, got, gerr, want, werr)
				}
			}
		}
	}
	compare("written")
	if _, err := written.DeleteOrphans(ctx, map[string]bool{"t1": true}, cutoff); err != nil {
		t.Fatal(err)
	}
	compare("after the repair")
	for name, want := range map[string]bool{"live": true, "dead": false, "dead-too": false, "dead-new": true, "gone": false, "ended": false} {
		_, err := query.Blob(ctx, blobs[name])
		if found := !errors.Is(err, domain.ErrNotFound); found != want || (found && err != nil) {
			t.Errorf("blob %q after the repair: found %v (%v), want %v", name, found, err, want)
		}
	}

	// the accounts holding quota
	usage, usageQuery := NewUsage(kit.DB), NewUsage(mongox.NewDB(kit.DB.Database, mongox.Shared))
	if held, err := usage.Holding(ctx); err != nil || len(held) != 0 { // loads the copy before the writes
		t.Fatalf("holding before any account: %v %v", held, err)
	}
	for i, tenancy := range []string{"t1", "t2", "t3", "t4"} {
		if _, err := usage.Account(ctx, tenancy, func(a *domain.Account) error {
			return a.Reserve(domain.Hold{ID: fmt.Sprint("h", i), PlotID: "plot_1_1", Path: "/a.md", Change: domain.Change{Bytes: 1, Files: 1}})
		}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := usage.Account(ctx, "t2", func(a *domain.Account) error { a.Confirm("h1"); return nil }); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*Usage{"as written": usage, "loaded at start": NewUsage(mongox.NewDB(kit.DB.Database, kit.DB.Mode()))} {
		got, gerr := s.Holding(ctx)
		want, werr := usageQuery.Holding(ctx)
		if gerr != nil || werr != nil || fmt.Sprint(got) != "[t1 t3 t4]" || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: tenancies holding quota: got %v %v, want %v %v (and [t1 t3 t4])", name, got, gerr, want, werr)
		}
	}
}

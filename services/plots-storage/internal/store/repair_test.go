package store

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/plots-storage/internal/app"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// The start-up repair's reads of the tenancies holding files and content
// (from memory on the mirrored adapter) answer the tenancies the test
// wrote, on the adapter as written and on a second one opened on the
// stored files, before and after orphans are removed; and the repair
// removes the content of dead tenancies written before the cutoff only.
func TestRepairReads(t *testing.T) {
	testkit.EachAdapter(t, newMongoFiles, newMirroredFiles, testRepairReads)
}

func testRepairReads(t *testing.T, kit *testkit.Kit, open func() filesAdapter) {
	ctx := kit.Ctx()
	written := ensured(t, open())
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
		if _, err := written.Change(ctx, p.plot, p.tenancy, "/a.md", func(f *domain.File) ([]domain.Event, error) {
			f.Size, f.WrittenBy, f.WrittenAt = 1, "agent_w", cutoff.Add(-time.Hour)
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := written.DeleteBlob(ctx, blobs["gone"]); err != nil {
		t.Fatal(err)
	}
	written.FlushDeletes(ctx) // the mirrored adapter queues the removal
	if err := written.DeleteTenancy(ctx, "plot_1_3", "t5"); err != nil {
		t.Fatal(err)
	}
	check := func(stage string, heads, contents []string) {
		t.Helper()
		for name, s := range map[string]filesAdapter{"as written": written, "opened on the stored files": ensured(t, open())} {
			for c, read := range map[string]func() ([]string, error){
				"files": func() ([]string, error) { return s.headTenancies(ctx) },
				"blobs": func() ([]string, error) { return s.blobTenancies(ctx) },
			} {
				want := heads
				if c == "blobs" {
					want = contents
				}
				got, err := read()
				slices.Sort(got)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, %s: tenancies of %s: got %v %v, want %v", stage, name, c, got, err, want)
				}
			}
		}
	}
	check("written", []string{"t1", "t2"}, []string{"t1", "t2", "t3"})
	if _, err := written.DeleteOrphans(ctx, map[string]bool{"t1": true}, cutoff); err != nil {
		t.Fatal(err)
	}
	check("after the repair", []string{"t1"}, []string{"t1", "t3"})
	for name, want := range map[string]bool{"live": true, "dead": false, "dead-too": false, "dead-new": true, "gone": false, "ended": false} {
		_, err := written.Content(ctx, domain.File{BlobID: blobs[name]})
		if found := !errors.Is(err, domain.ErrNotFound); found != want || (found && err != nil) {
			t.Errorf("blob %q after the repair: found %v (%v), want %v", name, found, err, want)
		}
	}
}

// The accounts holding quota (the sweep at start reads them from memory on
// the mirrored adapter), on the adapter as written and on a second one
// opened on the stored accounts.
func TestHoldingAccounts(t *testing.T) {
	testkit.EachAdapter(t, newMongoUsage, newMirroredUsage, func(t *testing.T, kit *testkit.Kit, open func() app.Usage) {
		ctx := kit.Ctx()
		usage := open()
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
		for name, s := range map[string]app.Usage{"as written": usage, "opened on the stored accounts": open()} {
			if got, err := s.Holding(ctx); err != nil || fmt.Sprint(got) != "[t1 t3 t4]" {
				t.Fatalf("%s: tenancies holding quota: got %v %v, want [t1 t3 t4]", name, got, err)
			}
		}
	})
}

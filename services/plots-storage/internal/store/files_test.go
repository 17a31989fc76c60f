package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/proto/catalog"
	"sharedworld.dev/services/plots-storage/internal/app"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

func newFiles(t *testing.T, db *mongox.DB) *Files {
	t.Helper()
	s := NewFiles(db, nil)
	if err := s.EnsureIndexes(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// grow is a write that adds one byte to the file's size and, on the
// commons, tells the garden: a counter nothing may lose or double.
func grow(by string) func(*domain.File) ([]domain.Event, error) {
	return func(f *domain.File) ([]domain.Event, error) {
		f.Size++
		f.WrittenBy = by
		f.WrittenAt = claimTime
		if f.PlotID != domain.CommonsPlotID {
			return nil, nil
		}
		return []domain.Event{domain.GardenChanged{Verb: domain.Tended, Path: f.Path, AgentID: by, At: claimTime}}, nil
	}
}

func TestFilesRepository(t *testing.T) {
	testkit.EachAdapter(t, newMongoFiles, newMirroredFiles, func(t *testing.T, kit *testkit.Kit, open func() filesAdapter) {
		s := ensured(t, open())
		testFiles(t, kit.Ctx(), s, func(f domain.File) []string {
			var types []string
			for _, e := range outboxOf(t, s.docs(f.PlotID).Collection(), fileID(f.PlotID, f.Tenancy, f.Path)) {
				types = append(types, e.Type)
			}
			return types
		})
	})
}

func testFiles(t *testing.T, ctx context.Context, repo app.Files, outbox func(domain.File) []string) {
	const plot, tenancy, path = "plot_x1_y1", "t1", "/notes.md"

	t.Run("write", func(t *testing.T) {
		blob, err := repo.PutBlob(ctx, tenancy, []byte("hello"), claimTime)
		if err != nil {
			t.Fatal(err)
		}
		f, err := repo.Change(ctx, plot, tenancy, path, func(f *domain.File) ([]domain.Event, error) {
			if f.Exists() || f.PlotID != plot || f.Tenancy != tenancy || f.Path != path {
				t.Errorf("a new file starts as a zero head of its path: %+v", f)
			}
			f.Size, f.BlobID, f.ContentType = 5, blob, "text/markdown"
			return nil, nil
		})
		if err != nil || f.Version != 1 || f.Size != 5 || f.BlobID != blob {
			t.Fatalf("write: %+v %v", f, err)
		}
		head, err := repo.Head(ctx, plot, tenancy, path)
		if err != nil || !reflect.DeepEqual(head, f) {
			t.Fatalf("head: %+v %v, want %+v", head, err, f)
		}
		if data, err := repo.Content(ctx, f); err != nil || string(data) != "hello" {
			t.Fatalf("blob: %q %v", data, err)
		}
		if other, err := repo.Head(ctx, plot, "t2", path); err != nil || other.Exists() {
			t.Fatalf("another tenancy of the plot does not see the file: %+v %v", other, err)
		}
	})
	t.Run("replace", func(t *testing.T) {
		f, err := repo.Change(ctx, plot, tenancy, path, func(f *domain.File) ([]domain.Event, error) {
			if f.Version != 1 || f.Size != 5 {
				t.Errorf("the change sees the stored head: %+v", f)
			}
			f.Size, f.BlobID = 7, "b2"
			return nil, nil
		})
		if err != nil || f.Version != 2 || f.Size != 7 || f.ContentType != "text/markdown" {
			t.Fatalf("replace: %+v %v", f, err)
		}
		list, err := repo.List(ctx, plot, tenancy, "/no")
		if err != nil || len(list) != 1 || !reflect.DeepEqual(list[0], f) {
			t.Fatalf("list: %+v %v", list, err)
		}
	})
	t.Run("delete", func(t *testing.T) {
		refused := errors.New("refused")
		if err := repo.Delete(ctx, plot, tenancy, path, func(domain.File) error { return refused }); !errors.Is(err, refused) {
			t.Fatalf("a refused delete: %v", err)
		}
		var seen domain.File
		if err := repo.Delete(ctx, plot, tenancy, path, func(f domain.File) error { seen = f; return nil }); err != nil || seen.Version != 2 {
			t.Fatalf("delete: %v (checked %+v)", err, seen)
		}
		if head, err := repo.Head(ctx, plot, tenancy, path); err != nil || head.Exists() {
			t.Fatalf("deleted: %+v %v", head, err)
		}
		if err := repo.Delete(ctx, plot, tenancy, path, func(domain.File) error { return nil }); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("deleting nothing: %v", err)
		}
	})
	t.Run("content in the head", func(t *testing.T) {
		for _, on := range []string{plot, domain.CommonsPlotID} {
			const inline, own = "/inline.md", "t-inline"
			put := func(content string) domain.File {
				t.Helper()
				f, err := repo.Change(ctx, on, own, inline, func(f *domain.File) ([]domain.Event, error) {
					f.Size, f.BlobID, f.Content = int64(len(content)), "", []byte(content)
					return nil, nil
				})
				if err != nil {
					t.Fatal(err)
				}
				return f
			}
			first := put("small")
			head, err := repo.Head(ctx, on, own, inline)
			if err != nil || head.Version != first.Version {
				t.Fatalf("%s: head %+v %v", on, head, err)
			}
			if data, err := repo.Content(ctx, head); err != nil || string(data) != "small" {
				t.Fatalf("%s: content of the head: %q %v", on, data, err)
			}
			list, err := repo.List(ctx, on, own, inline)
			if err != nil || len(list) != 1 || list[0].Content != nil {
				t.Fatalf("%s: a listing carries no content: %+v %v", on, list, err)
			}
			second := put("")
			// A head read before a write gives its own content, or none:
			// never the next version's.
			if data, err := repo.Content(ctx, head); !errors.Is(err, domain.ErrNotFound) && (err != nil || string(data) != "small") {
				t.Fatalf("%s: the content of a replaced head: %q %v", on, data, err)
			}
			if _, err := repo.Content(ctx, domain.File{PlotID: on, Tenancy: own, Path: inline, Version: first.Version}); !errors.Is(err, domain.ErrNotFound) {
				t.Fatalf("%s: the content of a replaced version: %v, want not found", on, err)
			}
			if data, err := repo.Content(ctx, domain.File{PlotID: on, Tenancy: own, Path: inline, Version: second.Version}); err != nil || data == nil || len(data) != 0 {
				t.Fatalf("%s: an empty file's content: %q %v", on, data, err)
			}
		}
	})
	t.Run("content of a file deleted and written again", func(t *testing.T) {
		// Versions start over at 1 after a delete; each write's hold is its
		// own, so a head read before the delete never gives the new
		// file's content.
		const again, own = "/again.md", "t-again"
		put := func(content, hold string) domain.File {
			t.Helper()
			f, err := repo.Change(ctx, plot, own, again, func(f *domain.File) ([]domain.Event, error) {
				f.Size, f.Content, f.Hold = int64(len(content)), []byte(content), hold
				return nil, nil
			})
			if err != nil || f.Version != 1 {
				t.Fatalf("write %q: %+v %v", content, f, err)
			}
			return f
		}
		put("first", "hold_1")
		head, err := repo.Head(ctx, plot, own, again)
		if err != nil {
			t.Fatal(err)
		}
		if err := repo.Delete(ctx, plot, own, again, func(domain.File) error { return nil }); err != nil {
			t.Fatal(err)
		}
		put("second", "hold_2")
		if data, err := repo.Content(ctx, head); !errors.Is(err, domain.ErrNotFound) && (err != nil || string(data) != "first") {
			t.Fatalf("the content of a deleted file's head: %q %v", data, err)
		}
	})
	t.Run("racing writers on one file", func(t *testing.T) {
		for _, on := range []string{plot, domain.CommonsPlotID} {
			const writers, each = 8, 5
			var mu sync.Mutex
			var versions []uint64
			concurrently(writers, func(w int) {
				for i := range each {
					f, err := repo.Change(ctx, on, tenancy, "/race.md", grow(fmt.Sprintf("w%d/%d", w, i)))
					if err != nil {
						t.Errorf("writer %d: %v", w, err)
						return
					}
					mu.Lock()
					versions = append(versions, f.Version)
					mu.Unlock()
				}
			})
			slices.Sort(versions)
			for i, v := range versions {
				if v != uint64(i+1) {
					t.Fatalf("%s: versions %v, want 1..%d each once", on, versions, writers*each)
				}
			}
			head, err := repo.Head(ctx, on, tenancy, "/race.md")
			if err != nil || head.Size != writers*each || head.Version != writers*each {
				t.Fatalf("%s: after %d racing writes: %+v %v", on, writers*each, head, err)
			}
			want := 0
			if on == domain.CommonsPlotID {
				want = writers * each
			}
			events := outbox(head)
			if len(events) != want || (want > 0 && events[0] != catalog.TypeGardenTended) {
				t.Fatalf("%s: %d outbox events (%v), want %d", on, len(events), events, want)
			}
		}
	})
	t.Run("tenancy removal", func(t *testing.T) {
		if _, err := repo.PutBlob(ctx, "t-old", []byte("x"), claimTime.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		if _, err := repo.Change(ctx, plot, "t-old", "/a.md", grow("old")); err != nil {
			t.Fatal(err)
		}
		if err := repo.DeleteTenancy(ctx, plot, "t-old"); err != nil {
			t.Fatal(err)
		}
		if list, err := repo.List(ctx, plot, "t-old", ""); err != nil || len(list) != 0 {
			t.Fatalf("an ended tenancy's files are gone: %+v %v", list, err)
		}
		if list, err := repo.List(ctx, plot, tenancy, ""); err != nil || len(list) != 1 {
			t.Fatalf("other tenancies keep theirs: %+v %v", list, err)
		}
	})
}

// Another replica writes the file between this one's read and its write: on
// a shared database the version guard catches it and the write is decided
// again on the replica's result, so both land.
func TestFilesVersionClashOnASharedDatabase(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	s := newFiles(t, kit.SharedDB())
	replica := newFiles(t, kit.SharedDB())
	const plot, tenancy, path = domain.CommonsPlotID, "commons", "/garden/index.md"
	if _, err := s.Change(ctx, plot, tenancy, path, grow("first")); err != nil {
		t.Fatal(err)
	}
	interleaved := 0
	s.garden.BeforeWrite = func(ctx context.Context, id string) {
		if interleaved < 2 {
			interleaved++
			if _, err := replica.Change(ctx, plot, tenancy, path, grow("replica")); err != nil {
				t.Error(err)
			}
		}
	}
	runs := 0
	f, err := s.Change(ctx, plot, tenancy, path, func(f *domain.File) ([]domain.Event, error) {
		runs++
		return grow("mine")(f)
	})
	if err != nil || runs != 3 || f.Size != 4 || f.Version != 4 || f.WrittenBy != "mine" {
		t.Fatalf("want the write run 3 times and applied once on top of both replica writes: runs %d, %+v, %v", runs, f, err)
	}
	var by []string
	for _, e := range outboxOf(t, s.OutboxCollection(), fileID(plot, tenancy, path)) {
		m, err := e.Decode()
		if err != nil {
			t.Fatal(err)
		}
		by = append(by, fmt.Sprint(m.(interface{ GetAgentId() string }).GetAgentId()))
	}
	if fmt.Sprint(by) != "[first replica replica mine]" {
		t.Fatalf("one event per write, in order: %v", by)
	}
}

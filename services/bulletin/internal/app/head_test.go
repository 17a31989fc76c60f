package app

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"sharedworld.dev/services/bulletin/internal/domain"
)

// storedRenderings records what a HeadKeeper stores.
type storedRenderings struct {
	domain.RenderingStore
	heads []domain.Head
	docs  []string
}

func (s *storedRenderings) SaveHead(_ context.Context, _ int64, h domain.Head) error {
	s.heads = append(s.heads, h)
	return nil
}

func (s *storedRenderings) SaveDocument(_ context.Context, _ int64, etag string, _ []byte) error {
	s.docs = append(s.docs, etag)
	return nil
}

type noSignal struct{}

func (noSignal) Send(context.Context, domain.Head) error { return nil }

// TestTheHeadFollowsRenderingsThatLeaveTheDocumentAsItWas: items whose
// changes leave the document unchanged (the same announcement again) still
// reach the head; the head never names an item its stored document lacks.
func TestTheHeadFollowsRenderingsThatLeaveTheDocumentAsItWas(t *testing.T) {
	store := &storedRenderings{}
	hub := NewHub(1, 16, unobserved{})
	board := NewBoard()
	k := &HeadKeeper{Store: store, Signal: noSignal{}, Board: board, Hub: hub, Term: 1, Log: slog.New(slog.DiscardHandler)}
	render := func(doc string, covers int64) {
		r, err := newRendered([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		r.Covers = covers
		board.publish(r)
	}
	settle := func(upTo int64) {
		for seq := hub.Released() + 1; seq <= upTo; seq++ {
			hub.Publish(StreamItem{Seq: seq})
		}
	}
	keep := func() domain.Head {
		t.Helper()
		if _, err := k.keep(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(store.heads) == 0 {
			return domain.Head{}
		}
		return store.heads[len(store.heads)-1]
	}

	settle(3)
	if h := keep(); h != (domain.Head{}) {
		t.Fatalf("a head %+v before the first document", h)
	}
	render(`{"n":1}`, 3)
	first := keep()
	if first.Settled != 3 || first.ETag == "" {
		t.Fatalf("head %+v after the first document showing seq 3, want settled 3", first)
	}

	// Seqs 4 and 5 are settled but not rendered yet: the head waits.
	settle(5)
	if h := keep(); h.Settled != 3 {
		t.Fatalf("head settled %d before a document shows seqs 4 and 5, want 3", h.Settled)
	}
	// They are rendered, and the document is the same bytes as stored.
	render(`{"n":1}`, 5)
	if h := keep(); h.Settled != 5 || h.ETag != first.ETag {
		t.Fatalf("head %+v after an unchanged document showing seq 5, want settled 5 with etag %s", h, first.ETag)
	}
	if len(store.docs) != 1 {
		t.Fatalf("stored the document %d times, want once (it did not change)", len(store.docs))
	}

	// A changed document is held back for documentInterval: the head keeps
	// the older document and what it shows.
	settle(6)
	render(`{"n":2}`, 6)
	if h := keep(); h.Settled != 5 {
		t.Fatalf("head settled %d while the document showing seq 6 is held back, want 5", h.Settled)
	}
	k.lastDoc = time.Now().Add(-documentInterval)
	if h := keep(); h.Settled != 6 || h.ETag == first.ETag {
		t.Fatalf("head %+v once the new document is stored, want settled 6 with its etag", h)
	}
}

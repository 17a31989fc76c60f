package store

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/messaging/internal/domain"
)

// TestListsContract writes every messaging collection through each adapter
// (seedWorld) and checks every list, filter, count, page size and cursor
// against the lists the written rows make, by brute force: as written, and
// from a second adapter opened on the stored rows (as a restarted process
// opens them), with the mirrored adapter's broadcast page taken both by Seq
// and by walking.
func TestListsContract(t *testing.T) {
	testkit.EachAdapter(t, newMongo, newMirrored, func(t *testing.T, kit *testkit.Kit, open func() adapter) {
		ctx := kit.Ctx()
		written := opened(t, open)
		w := seedWorld(t, ctx, written)
		t.Run("as written", func(t *testing.T) { agree(t, ctx, written, w) })
		t.Run("opened on the stored rows", func(t *testing.T) { agree(t, ctx, opened(t, open), w) })
		if walked, ok := opened(t, open).(*Mirrored); ok {
			walked.bySeqUpTo = 0
			t.Run("broadcasts walked", func(t *testing.T) { agree(t, ctx, walked, w) })
		}
	})
}

func agree(t *testing.T, ctx context.Context, s adapter, w *world) {
	limits := []int{0, 1, 3, 7, 50}
	people := append(append([]string{}, agents...), nobody)
	for _, a := range people {
		for _, box := range []domain.Box{domain.BoxInbox, domain.BoxSent} {
			for _, limit := range limits {
				pages(t, fmt.Sprintf("messages %s %s", a, box), limit,
					func(p *domain.Position) ([]domain.Message, error) { return s.Messages().List(ctx, a, box, p, limit) },
					func(p *domain.Position) []domain.Message { return w.boxPage(a, box, p, limit) },
					func(m domain.Message) domain.Position { return domain.Position{At: m.SentAt, ID: m.ID} })
			}
			same(t, "count "+a+" "+string(box), call(s.Messages().Count(ctx, a, box)), []any{int64(len(w.box(a, box))), nil})
		}
		times := []*time.Time{nil, {}, ptr(base.Add(5 * time.Minute)), ptr(base.Add(5*time.Minute + 700*time.Microsecond)), ptr(base.Add(time.Hour))}
		for _, unread := range times {
			for _, limit := range limits {
				pages(t, fmt.Sprintf("personals %s unread after %v", a, unread), limit,
					func(p *domain.Position) ([]domain.Personal, error) {
						return s.Notifications().Personals(ctx, a, unread, p, limit)
					},
					func(p *domain.Position) []domain.Personal { return w.personalsOf(a, unread, p, limit) },
					func(n domain.Personal) domain.Position { return domain.Position{At: n.CreatedAt, ID: n.ID} })
			}
			if unread != nil {
				same(t, fmt.Sprintf("unread of %s after %v", a, *unread),
					call(s.Notifications().UnreadPersonals(ctx, a, *unread)), []any{int64(len(w.unread(a, unread))), nil})
			}
		}
		same(t, "read state "+a, call(s.Notifications().ReadState(ctx, a)), []any{w.readState(a), nil})
		same(t, "latest post "+a, call(s.Commons().Latest(ctx, a)), []any{w.latestPost(a), nil})
		for _, now := range []time.Time{base, base.Add(90 * time.Minute), base.Add(2*time.Hour + 500*time.Microsecond), base.Add(3 * time.Hour)} {
			same(t, fmt.Sprintf("steward %s at %v", a, now), call(s.Stewards().IsSteward(ctx, a, now)), []any{w.isSteward(a, now), nil})
		}
	}
	same(t, "latest post of the ambassador", call(s.Commons().Latest(ctx, domain.AmbassadorAuthor)), []any{w.latestPost(domain.AmbassadorAuthor), nil})
	for _, from := range append([]string{""}, people...) {
		for _, limit := range limits {
			pages(t, "inbox from "+from, limit,
				func(p *domain.Position) ([]domain.InboxMessage, error) { return s.Inbox().List(ctx, from, p, limit) },
				func(p *domain.Position) []domain.InboxMessage { return w.inboxPage(from, p, limit) },
				func(m domain.InboxMessage) domain.Position { return domain.Position{At: m.CreatedAt, ID: m.ID} })
		}
	}
	same(t, "backlog", call(s.Inbox().Backlog(ctx)), []any{w.backlog(), nil})
	for _, ch := range domain.Channels {
		for _, limit := range limits {
			pages(t, "channel "+ch, limit,
				func(p *domain.Position) ([]domain.Post, error) { return s.Commons().List(ctx, ch, p, limit) },
				func(p *domain.Position) []domain.Post { return w.channelPage(ch, p, limit) },
				func(p domain.Post) domain.Position { return domain.Position{At: p.PostedAt, ID: p.ID} })
		}
	}
	same(t, "channel counts", call(s.Commons().Counts(ctx)), []any{w.channelCounts(), nil})
	agreeBroadcasts(t, ctx, s, w, limits)
	agreeByID(t, ctx, s, w)
}

func agreeBroadcasts(t *testing.T, ctx context.Context, s adapter, w *world, limits []int) {
	for _, from := range []int64{0, 1, 5, 12, 19, 20, 30} {
		for _, skip := range [][]int64{nil, {2, 6, 7, 19}, {13}} {
			for _, limit := range limits {
				pages(t, fmt.Sprintf("broadcasts above %d but %v", from, skip), limit,
					func(p *domain.Position) ([]domain.Broadcast, error) {
						return s.Notifications().Broadcasts(ctx, from, skip, p, limit)
					},
					func(p *domain.Position) []domain.Broadcast { return w.broadcastPage(from, skip, p, limit) },
					func(b domain.Broadcast) domain.Position { return domain.Position{At: b.CreatedAt, ID: b.ID} })
			}
		}
	}
	same(t, "latest seq", call(s.Notifications().LatestSeq(ctx)), []any{w.latestSeq(), nil})
	for _, at := range []time.Duration{-time.Minute, 0, time.Minute, time.Minute + 300*time.Microsecond, 150 * time.Second, time.Hour} {
		same(t, fmt.Sprintf("joined at %v", at), call(s.Notifications().JoinedSeq(ctx, base.Add(at))), []any{w.joinedSeq(base.Add(at)), nil})
	}
}

// agreeByID reads broadcasts and notifications by id, known and unknown.
func agreeByID(t *testing.T, ctx context.Context, s adapter, w *world) {
	bs := w.pageOf(w.broadcasts)
	if len(bs) != 20 {
		t.Fatalf("%d broadcasts, want 20", len(bs))
	}
	broadcastID := func(b domain.Broadcast) string { return b.ID }
	for _, id := range []string{bs[0].ID, bs[11].ID, "ntf_unknown"} {
		gb, gok, gerr := s.Notifications().Broadcast(ctx, id)
		wb, wok := find(w.broadcasts, broadcastID, id)
		same(t, "broadcast "+id, []any{gb, gok, gerr}, []any{wb, wok, nil})
	}
	ps := w.personalsOf(agents[1], nil, nil, 0)
	if len(ps) == 0 {
		t.Fatalf("no personals of %s", agents[1])
	}
	personalID := func(p domain.Personal) string { return p.ID }
	for _, id := range []string{ps[0].ID, ps[len(ps)-1].ID, "ntf_unknown"} {
		gp, gok, gerr := s.Notifications().Personal(ctx, id)
		wp, wok := find(w.personals, personalID, id)
		same(t, "personal "+id, []any{gp, gok, gerr}, []any{wp, wok, nil})
	}
}

// pages checks the pages of one list, following the expected cursor, and
// each page after the same cursor given finer than storage keeps it.
func pages[T any](t *testing.T, what string, limit int, got func(*domain.Position) ([]T, error), want func(*domain.Position) []T, pos func(T) domain.Position) {
	t.Helper()
	var after *domain.Position
	for n := 0; ; n++ {
		g, gerr := got(after)
		w := want(after)
		same(t, fmt.Sprintf("%s, limit %d, page %d", what, limit, n), []any{g, gerr}, []any{w, nil})
		if after != nil {
			fine := domain.Position{At: after.At.Add(999 * time.Microsecond), ID: after.ID}
			g, gerr := got(&fine)
			same(t, fmt.Sprintf("%s, limit %d, page %d after a finer cursor", what, limit, n), []any{g, gerr}, []any{w, nil})
		}
		if limit <= 0 || len(w) < limit {
			return
		}
		p := pos(w[len(w)-1])
		after = &p
	}
}

func same(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

func call[T any](v T, err error) []any { return []any{v, err} }

func ptr[T any](v T) *T { return &v }

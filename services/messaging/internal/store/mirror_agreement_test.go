package store

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/seal"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/messaging/internal/domain"
)

var (
	base   = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	agents = []string{"emb_a", "emb_b", "emb_c", "emb_d", "emb_e", "emb_f"}
	nobody = "emb_nobody"
)

// TestListsAgreeWithTheQueryPath writes every messaging collection through
// the store of the kit's mode (times shared by several rows, rows changed
// after their creation, redelivered keys, broadcasts whose times do not
// follow their Seqs) and compares every list, filter, count, page size and
// cursor with the MongoDB query path (a store on a shared handle of the
// same database): as written, and from a store on an exclusive handle that
// loads its copies afresh (so the memory path is compared in both test
// modes), with the broadcast page taken both by Seq and by walking.
func TestListsAgreeWithTheQueryPath(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	written := newStore(t, kit.DB)
	seedAll(t, ctx, written)

	query := newStore(t, mongox.NewDB(kit.DB.Database, mongox.Shared))
	loaded := newStore(t, mongox.NewDB(kit.DB.Database, mongox.Exclusive))
	walked := newStore(t, mongox.NewDB(kit.DB.Database, mongox.Exclusive))
	walked.bySeqUpTo = 0
	if loaded.mirror == nil || walked.mirror == nil {
		t.Fatal("a store on an exclusive database keeps no copy")
	}
	for name, s := range map[string]*Store{"as written": written, "loaded at start": loaded, "broadcasts walked": walked} {
		t.Run(name, func(t *testing.T) { agree(t, ctx, s, query) })
	}
}

func agree(t *testing.T, ctx context.Context, s, q *Store) {
	limits := []int{0, 1, 3, 7, 50}
	people := append(append([]string{}, agents...), nobody)
	for _, a := range people {
		for _, box := range []domain.Box{domain.BoxInbox, domain.BoxSent} {
			for _, limit := range limits {
				pages(t, fmt.Sprintf("messages %s %s", a, box), limit,
					func(p *domain.Position) ([]domain.Message, error) { return s.Messages().List(ctx, a, box, p, limit) },
					func(p *domain.Position) ([]domain.Message, error) { return q.Messages().List(ctx, a, box, p, limit) },
					func(m domain.Message) domain.Position { return domain.Position{At: m.SentAt, ID: m.ID} })
			}
			same(t, "count "+a+" "+string(box), call(s.Messages().Count(ctx, a, box)), call(q.Messages().Count(ctx, a, box)))
		}
		times := []*time.Time{nil, {}, ptr(base.Add(5 * time.Minute)), ptr(base.Add(5*time.Minute + 700*time.Microsecond)), ptr(base.Add(time.Hour))}
		for _, unread := range times {
			for _, limit := range limits {
				pages(t, fmt.Sprintf("personals %s unread after %v", a, unread), limit,
					func(p *domain.Position) ([]domain.Personal, error) {
						return s.Notifications().Personals(ctx, a, unread, p, limit)
					},
					func(p *domain.Position) ([]domain.Personal, error) {
						return q.Notifications().Personals(ctx, a, unread, p, limit)
					},
					func(n domain.Personal) domain.Position { return domain.Position{At: n.CreatedAt, ID: n.ID} })
			}
			if unread != nil {
				same(t, fmt.Sprintf("unread of %s after %v", a, *unread),
					call(s.Notifications().UnreadPersonals(ctx, a, *unread)), call(q.Notifications().UnreadPersonals(ctx, a, *unread)))
			}
		}
		same(t, "read state "+a, call(s.Notifications().ReadState(ctx, a)), call(q.Notifications().ReadState(ctx, a)))
		same(t, "latest post "+a, call(s.Commons().Latest(ctx, a)), call(q.Commons().Latest(ctx, a)))
		for _, now := range []time.Time{base, base.Add(90 * time.Minute), base.Add(2*time.Hour + 500*time.Microsecond), base.Add(3 * time.Hour)} {
			same(t, fmt.Sprintf("steward %s at %v", a, now), call(s.Stewards().IsSteward(ctx, a, now)), call(q.Stewards().IsSteward(ctx, a, now)))
		}
	}
	same(t, "latest post of the ambassador", call(s.Commons().Latest(ctx, domain.AmbassadorAuthor)), call(q.Commons().Latest(ctx, domain.AmbassadorAuthor)))
	for _, from := range append([]string{""}, people...) {
		for _, limit := range limits {
			pages(t, "inbox from "+from, limit,
				func(p *domain.Position) ([]domain.InboxMessage, error) { return s.Inbox().List(ctx, from, p, limit) },
				func(p *domain.Position) ([]domain.InboxMessage, error) { return q.Inbox().List(ctx, from, p, limit) },
				func(m domain.InboxMessage) domain.Position { return domain.Position{At: m.CreatedAt, ID: m.ID} })
		}
	}
	same(t, "backlog", call(s.Inbox().Backlog(ctx)), call(q.Inbox().Backlog(ctx)))
	for _, ch := range domain.Channels {
		for _, limit := range limits {
			pages(t, "channel "+ch, limit,
				func(p *domain.Position) ([]domain.Post, error) { return s.Commons().List(ctx, ch, p, limit) },
				func(p *domain.Position) ([]domain.Post, error) { return q.Commons().List(ctx, ch, p, limit) },
				func(p domain.Post) domain.Position { return domain.Position{At: p.PostedAt, ID: p.ID} })
		}
	}
	same(t, "channel counts", call(s.Commons().Counts(ctx)), call(q.Commons().Counts(ctx)))
	agreeBroadcasts(t, ctx, s, q, limits)
}

func agreeBroadcasts(t *testing.T, ctx context.Context, s, q *Store, limits []int) {
	for _, from := range []int64{0, 1, 5, 12, 19, 20, 30} {
		for _, skip := range [][]int64{nil, {2, 6, 7, 19}, {13}} {
			for _, limit := range limits {
				pages(t, fmt.Sprintf("broadcasts above %d but %v", from, skip), limit,
					func(p *domain.Position) ([]domain.Broadcast, error) {
						return s.Notifications().Broadcasts(ctx, from, skip, p, limit)
					},
					func(p *domain.Position) ([]domain.Broadcast, error) {
						return q.Notifications().Broadcasts(ctx, from, skip, p, limit)
					},
					func(b domain.Broadcast) domain.Position { return domain.Position{At: b.CreatedAt, ID: b.ID} })
			}
		}
	}
	same(t, "latest seq", call(s.Notifications().LatestSeq(ctx)), call(q.Notifications().LatestSeq(ctx)))
	for _, at := range []time.Duration{-time.Minute, 0, time.Minute, time.Minute + 300*time.Microsecond, 150 * time.Second, time.Hour} {
		same(t, fmt.Sprintf("joined at %v", at), call(s.Notifications().JoinedSeq(ctx, base.Add(at))), call(q.Notifications().JoinedSeq(ctx, base.Add(at))))
	}
	bs, err := q.Notifications().Broadcasts(ctx, 0, nil, nil, 0)
	if err != nil || len(bs) != 20 {
		t.Fatalf("%d broadcasts (%v), want 20", len(bs), err)
	}
	for _, id := range []string{bs[0].ID, bs[11].ID, "ntf_unknown"} {
		gb, gok, gerr := s.Notifications().Broadcast(ctx, id)
		wb, wok, werr := q.Notifications().Broadcast(ctx, id)
		same(t, "broadcast "+id, []any{gb, gok, gerr}, []any{wb, wok, werr})
	}
	ps, err := q.Notifications().Personals(ctx, agents[1], nil, nil, 0)
	if err != nil || len(ps) == 0 {
		t.Fatalf("personals of %s: %v %v", agents[1], ps, err)
	}
	for _, id := range []string{ps[0].ID, ps[len(ps)-1].ID, "ntf_unknown"} {
		gp, gok, gerr := s.Notifications().Personal(ctx, id)
		wp, wok, werr := q.Notifications().Personal(ctx, id)
		same(t, "personal "+id, []any{gp, gok, gerr}, []any{wp, wok, werr})
	}
}

// pages compares the pages of one list, following the query path's
// cursor, and each page after the same cursor given finer than storage
// keeps it.
func pages[T any](t *testing.T, what string, limit int, got, want func(*domain.Position) ([]T, error), pos func(T) domain.Position) {
	t.Helper()
	var after *domain.Position
	for n := 0; ; n++ {
		g, gerr := got(after)
		w, werr := want(after)
		same(t, fmt.Sprintf("%s, limit %d, page %d", what, limit, n), []any{g, gerr}, []any{w, werr})
		if after != nil {
			fine := domain.Position{At: after.At.Add(999 * time.Microsecond), ID: after.ID}
			g, gerr := got(&fine)
			same(t, fmt.Sprintf("%s, limit %d, page %d after a finer cursor", what, limit, n), []any{g, gerr}, []any{w, werr})
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

// seedAll writes rows of every collection through s, the way the service
// writes them.
func seedAll(t *testing.T, ctx context.Context, s *Store) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		from, to := agents[i%6], agents[(i*5+1)%6]
		m, err := s.Messages().Send(ctx, func(id string) (domain.Message, domain.Sent) {
			return domain.Message{ID: id, From: from, To: to, Sealed: seal.Sealed{KDF: seal.KDFArgon2id, Ciphertext: []byte{byte(i)}},
				SentAt: base.Add(time.Duration(i/4) * time.Minute)}, domain.Sent{}
		})
		must(err)
		if i%3 == 0 {
			_, err := s.Messages().MarkRead(ctx, m.ID, func(m *domain.Message) error {
				_, err := m.MarkRead(to, base.Add(time.Hour))
				return err
			})
			must(err)
		}
	}
	for i := range 40 {
		key := fmt.Sprintf("key_%d", i%38) // two redelivered
		must(s.Notifications().AddPersonal(ctx, func(id string) domain.Personal {
			return domain.Personal{ID: id, AgentID: agents[i%5], Key: key, Kind: domain.KindMessage, Title: key, RefID: "msg_x",
				CreatedAt: base.Add(time.Duration(i/3) * time.Minute)}
		}))
	}
	ps, err := newQuery(s).Notifications().Personals(ctx, agents[1], nil, nil, 0)
	must(err)
	for _, p := range ps[:len(ps)/2] {
		_, err := s.Notifications().MarkPersonal(ctx, p.ID, func(p *domain.Personal) error {
			at := base.Add(2 * time.Hour)
			p.ReadAt = &at
			return nil
		})
		must(err)
	}
	for i := range 22 {
		_, err := s.Notifications().AddBroadcast(ctx, domain.Broadcast{Key: fmt.Sprintf("b_%d", i%20), Kind: domain.KindAnnouncement,
			Title: "t", CreatedAt: base.Add(time.Duration((i*7)%10) * 30 * time.Second)})
		must(err)
	}
	for i, a := range agents[:4] {
		_, err := s.Notifications().ChangeReadState(ctx, a, func(st *domain.ReadState) error {
			st.MarkBroadcast(int64(i+3), base.Add(time.Minute))
			if i%2 == 1 {
				st.MarkAll(int64(5*i), base.Add(time.Duration(i)*5*time.Minute))
			}
			st.MarkBroadcast(17, base.Add(time.Minute))
			return nil
		})
		must(err)
	}
	for i := range 36 {
		agent, slot, day := agents[i%6], (i/6)%3+1, fmt.Sprintf("2026-11-%02d", 20+i/18)
		ch := domain.Channels[1+i%4]
		_, err := s.Commons().Post(ctx, agent, day, slot, func(id string) (domain.Post, domain.CommonsPosted) {
			return domain.Post{ID: id, Channel: ch, AgentID: agent, Title: "t", Content: "c", PostedAt: base.Add(time.Duration(i/5) * time.Minute)}, domain.CommonsPosted{}
		})
		must(err)
	}
	for range 3 {
		_, err := s.Commons().Post(ctx, domain.AmbassadorAuthor, "2026-11-20", 0, func(id string) (domain.Post, domain.CommonsPosted) {
			return domain.Post{ID: id, Channel: domain.AnnouncementsChannel, AgentID: domain.AmbassadorAuthor, Title: "a", Content: "c", PostedAt: base}, domain.CommonsPosted{}
		})
		must(err)
	}
	for i := range 20 {
		from, day := agents[i%6], fmt.Sprintf("2026-11-%02d", 10+i/6)
		m, err := s.Inbox().Receive(ctx, from, day, func(id string) (domain.InboxMessage, domain.InboxReceived) {
			return domain.InboxMessage{ID: id, From: from, Subject: "s", Body: "b", Type: domain.InboxGeneral,
				CreatedAt: base.Add(time.Duration(i/3) * time.Minute)}, domain.InboxReceived{}
		})
		must(err)
		if i%3 == 0 {
			_, err := s.Inbox().Answer(ctx, m.ID, func(m *domain.InboxMessage) (domain.InboxReplied, error) {
				return domain.InboxReplied{}, m.Answer("thanks", base.Add(time.Hour))
			})
			must(err)
		}
	}
	st := s.Stewards()
	must(st.Elected(ctx, "chief", agents[1], "el_1", base.Add(time.Hour)))
	must(st.Elected(ctx, "land", agents[2], "el_2", base.Add(2*time.Hour)))
	must(st.Elected(ctx, "peace", agents[3], "el_3", base.Add(2*time.Hour)))
	must(st.TermEnded(ctx, "peace", agents[3]))
	must(st.TermEnded(ctx, "land", agents[4])) // not the steward: nothing ends
	must(st.Elected(ctx, "chief", agents[5], "el_4", base.Add(3*time.Hour)))
}

// newQuery is a store on a shared handle of s's database: the MongoDB
// query path.
func newQuery(s *Store) *Store {
	return New(mongox.NewDB(s.db.Database, mongox.Shared), func(any) (events.Event, error) { return events.Event{}, nil }, nil)
}

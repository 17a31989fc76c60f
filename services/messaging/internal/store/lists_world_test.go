package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/seal"
	"sharedworld.dev/services/messaging/internal/domain"
)

var (
	base   = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	agents = []string{"emb_a", "emb_b", "emb_c", "emb_d", "emb_e", "emb_f"}
	nobody = "emb_nobody"
)

// world is what the test wrote, as the writes answered it: every list,
// count and filter the repositories answer is computed from it by brute
// force.
type world struct {
	messages   []domain.Message
	personals  []domain.Personal
	broadcasts []domain.Broadcast
	reads      map[string]domain.ReadState
	posts      []postRow
	inbox      []domain.InboxMessage
	stewards   map[string]stewardDoc
}

// postRow is a post with the daily slot it took.
type postRow struct {
	domain.Post
	slot int
}

// seedWorld writes rows of every collection through s, the way the service
// writes them: times shared by several rows, rows changed after their
// creation, redelivered keys, broadcasts whose times do not follow their
// Seqs.
func seedWorld(t *testing.T, ctx context.Context, s adapter) *world {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	w := &world{reads: map[string]domain.ReadState{}, stewards: map[string]stewardDoc{}}
	for i := range 40 {
		from, to := agents[i%6], agents[(i*5+1)%6]
		m, err := s.Messages().Send(ctx, func(id string) (domain.Message, domain.Sent) {
			return domain.Message{ID: id, From: from, To: to, Sealed: seal.Sealed{KDF: seal.KDFArgon2id, Ciphertext: []byte{byte(i)}},
				SentAt: base.Add(time.Duration(i/4) * time.Minute)}, domain.Sent{}
		})
		must(err)
		if i%3 == 0 {
			m, err = s.Messages().MarkRead(ctx, m.ID, func(m *domain.Message) error {
				_, err := m.MarkRead(to, base.Add(time.Hour))
				return err
			})
			must(err)
		}
		w.messages = append(w.messages, m)
	}
	keys := map[string]bool{}
	for i := range 40 {
		key := fmt.Sprintf("key_%d", i%38) // two redelivered
		var built domain.Personal
		must(s.Notifications().AddPersonal(ctx, func(id string) domain.Personal {
			built = domain.Personal{ID: id, AgentID: agents[i%5], Key: key, Kind: domain.KindMessage, Title: key, RefID: "msg_x",
				CreatedAt: base.Add(time.Duration(i/3) * time.Minute)}
			return built
		}))
		if !keys[key] {
			keys[key] = true
			w.personals = append(w.personals, built)
		}
	}
	ps := w.personalsOf(agents[1], nil, nil, 0)
	for _, p := range ps[:len(ps)/2] {
		marked, err := s.Notifications().MarkPersonal(ctx, p.ID, func(p *domain.Personal) error {
			at := base.Add(2 * time.Hour)
			p.ReadAt = &at
			return nil
		})
		must(err)
		w.personals[slices.IndexFunc(w.personals, func(q domain.Personal) bool { return q.ID == p.ID })] = marked
	}
	for i := range 22 {
		b := domain.Broadcast{Key: fmt.Sprintf("b_%d", i%20), Kind: domain.KindAnnouncement,
			Title: "t", CreatedAt: base.Add(time.Duration((i*7)%10) * 30 * time.Second)}
		stored, err := s.Notifications().AddBroadcast(ctx, b)
		must(err)
		if stored != (i < 20) {
			t.Fatalf("broadcast %d (key %s) stored: %v", i, b.Key, stored)
		}
		if stored {
			b.Seq = int64(len(w.broadcasts) + 1)
			w.broadcasts = append(w.broadcasts, b)
		}
	}
	w.broadcastIDs(t, ctx, s.DB())
	for i, a := range agents[:4] {
		st, err := s.Notifications().ChangeReadState(ctx, a, func(st *domain.ReadState) error {
			st.MarkBroadcast(int64(i+3), base.Add(time.Minute))
			if i%2 == 1 {
				st.MarkAll(int64(5*i), base.Add(time.Duration(i)*5*time.Minute))
			}
			st.MarkBroadcast(17, base.Add(time.Minute))
			return nil
		})
		must(err)
		w.reads[a] = st
	}
	for i := range 36 {
		agent, slot, day := agents[i%6], (i/6)%3+1, fmt.Sprintf("2026-11-%02d", 20+i/18)
		ch := domain.Channels[1+i%4]
		p, err := s.Commons().Post(ctx, agent, day, slot, func(id string) (domain.Post, domain.CommonsPosted) {
			return domain.Post{ID: id, Channel: ch, AgentID: agent, Title: "t", Content: "c", PostedAt: base.Add(time.Duration(i/5) * time.Minute)}, domain.CommonsPosted{}
		})
		must(err)
		w.posts = append(w.posts, postRow{p, slot})
	}
	for range 3 {
		p, err := s.Commons().Post(ctx, domain.AmbassadorAuthor, "2026-11-20", 0, func(id string) (domain.Post, domain.CommonsPosted) {
			return domain.Post{ID: id, Channel: domain.AnnouncementsChannel, AgentID: domain.AmbassadorAuthor, Title: "a", Content: "c", PostedAt: base}, domain.CommonsPosted{}
		})
		must(err)
		w.posts = append(w.posts, postRow{p, 0})
	}
	for i := range 20 {
		from, day := agents[i%6], fmt.Sprintf("2026-11-%02d", 10+i/6)
		m, err := s.Inbox().Receive(ctx, from, day, func(id string) (domain.InboxMessage, domain.InboxReceived) {
			return domain.InboxMessage{ID: id, From: from, Subject: "s", Body: "b", Type: domain.InboxGeneral,
				CreatedAt: base.Add(time.Duration(i/3) * time.Minute)}, domain.InboxReceived{}
		})
		must(err)
		if i%3 == 0 {
			m, err = s.Inbox().Answer(ctx, m.ID, func(m *domain.InboxMessage) (domain.InboxReplied, error) {
				return domain.InboxReplied{}, m.Answer("thanks", base.Add(time.Hour))
			})
			must(err)
		}
		w.inbox = append(w.inbox, m)
	}
	st := s.Stewards()
	elected := func(role, agent, election string, end time.Time) {
		must(st.Elected(ctx, role, agent, election, end))
		w.stewards[role] = stewardDoc{Role: role, AgentID: agent, TermEnd: end, Election: election}
	}
	ended := func(role, agent string) {
		must(st.TermEnded(ctx, role, agent))
		if d := w.stewards[role]; d.AgentID == agent {
			d.Ended = true
			w.stewards[role] = d
		}
	}
	elected("chief", agents[1], "el_1", base.Add(time.Hour))
	elected("land", agents[2], "el_2", base.Add(2*time.Hour))
	elected("peace", agents[3], "el_3", base.Add(2*time.Hour))
	ended("peace", agents[3])
	ended("land", agents[4]) // not the steward: nothing ends
	elected("chief", agents[5], "el_4", base.Add(3*time.Hour))
	return w
}

// broadcastIDs fills in the ids AddBroadcast drew (it answers only whether
// it stored), from the stored rows by key: each key once.
func (w *world) broadcastIDs(t *testing.T, ctx context.Context, db *mongox.DB) {
	t.Helper()
	rows, err := mongox.FindAll[broadcastDoc](ctx, db.Collection("broadcasts"), bson.M{})
	if err != nil || len(rows) != len(w.broadcasts) {
		t.Fatalf("%d broadcasts stored (%v), want %d", len(rows), err, len(w.broadcasts))
	}
	for i, b := range w.broadcasts {
		at := slices.IndexFunc(rows, func(d broadcastDoc) bool { return d.Key == b.Key })
		if at < 0 {
			t.Fatalf("broadcast %s not stored", b.Key)
		}
		w.broadcasts[i].ID = rows[at].ID
	}
}

// newestPage is up to limit (≤ 0: every) rows after pos in the list order
// (newest first, then _id descending), pos compared at the precision
// storage keeps: the page every list must give.
func newestPage[T any](rows []T, at func(T) time.Time, id func(T) string, after *domain.Position, limit int) []T {
	sorted := slices.Clone(rows)
	slices.SortFunc(sorted, func(a, b T) int {
		if c := at(b).Compare(at(a)); c != 0 {
			return c
		}
		return cmp.Compare(id(b), id(a))
	})
	out := []T{}
	for _, r := range sorted {
		if after != nil {
			pos := clock.Stored(after.At)
			if c := at(r).Compare(pos); c > 0 || c == 0 && id(r) >= after.ID {
				continue
			}
		}
		if limit > 0 && len(out) == limit {
			break
		}
		out = append(out, r)
	}
	return out
}

func where[T any](rows []T, keep func(T) bool) []T {
	out := []T{}
	for _, r := range rows {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

func (w *world) box(agentID string, box domain.Box) []domain.Message {
	return where(w.messages, func(m domain.Message) bool {
		return box == domain.BoxSent && m.From == agentID || box != domain.BoxSent && m.To == agentID
	})
}

func (w *world) boxPage(agentID string, box domain.Box, after *domain.Position, limit int) []domain.Message {
	return newestPage(w.box(agentID, box), func(m domain.Message) time.Time { return m.SentAt },
		func(m domain.Message) string { return m.ID }, after, limit)
}

// unread keeps agentID's notifications, and with unreadAfter the unread
// ones made after it (every unread one when it is zero).
func (w *world) unread(agentID string, unreadAfter *time.Time) []domain.Personal {
	return where(w.personals, func(p domain.Personal) bool {
		if p.AgentID != agentID {
			return false
		}
		if unreadAfter == nil {
			return true
		}
		return p.ReadAt == nil && (unreadAfter.IsZero() || p.CreatedAt.After(clock.Stored(*unreadAfter)))
	})
}

func (w *world) personalsOf(agentID string, unreadAfter *time.Time, after *domain.Position, limit int) []domain.Personal {
	return newestPage(w.unread(agentID, unreadAfter), func(p domain.Personal) time.Time { return p.CreatedAt },
		func(p domain.Personal) string { return p.ID }, after, limit)
}

func (w *world) readState(agentID string) domain.ReadState {
	if st, ok := w.reads[agentID]; ok {
		return st
	}
	return domain.ReadState{AgentID: agentID}
}

func (w *world) latestPost(agentID string) *domain.Stamp {
	var st *domain.Stamp
	for _, p := range w.posts {
		if p.AgentID == agentID && (st == nil || p.PostedAt.After(st.At) || p.PostedAt.Equal(st.At) && p.slot > st.Slot) {
			st = &domain.Stamp{At: p.PostedAt, Slot: p.slot}
		}
	}
	return st
}

func (w *world) isSteward(agentID string, now time.Time) bool {
	for _, d := range w.stewards {
		if d.AgentID == agentID && !d.Ended && d.TermEnd.After(clock.Stored(now)) {
			return true
		}
	}
	return false
}

func (w *world) inboxPage(from string, after *domain.Position, limit int) []domain.InboxMessage {
	rows := where(w.inbox, func(m domain.InboxMessage) bool { return from == "" || m.From == from })
	return newestPage(rows, func(m domain.InboxMessage) time.Time { return m.CreatedAt },
		func(m domain.InboxMessage) string { return m.ID }, after, limit)
}

func (w *world) backlog() int64 {
	return int64(len(where(w.inbox, func(m domain.InboxMessage) bool { return m.RepliedAt == nil })))
}

func (w *world) channelPage(channel string, after *domain.Position, limit int) []domain.Post {
	var rows []domain.Post
	for _, p := range w.posts {
		if p.Channel == channel {
			rows = append(rows, p.Post)
		}
	}
	return newestPage(rows, func(p domain.Post) time.Time { return p.PostedAt }, func(p domain.Post) string { return p.ID }, after, limit)
}

func (w *world) channelCounts() map[string]int64 {
	out := map[string]int64{}
	for _, p := range w.posts {
		out[p.Channel]++
	}
	return out
}

func (w *world) broadcastPage(from int64, skip []int64, after *domain.Position, limit int) []domain.Broadcast {
	rows := where(w.broadcasts, func(b domain.Broadcast) bool { return b.Seq > from && !slices.Contains(skip, b.Seq) })
	return newestPage(rows, func(b domain.Broadcast) time.Time { return b.CreatedAt },
		func(b domain.Broadcast) string { return b.ID }, after, limit)
}

func (w *world) latestSeq() int64 {
	var seq int64
	for _, b := range w.broadcasts {
		seq = max(seq, b.Seq)
	}
	return seq
}

// joinedSeq is the Seq of the newest broadcast made before t (then the
// highest _id).
func (w *world) joinedSeq(t time.Time) int64 {
	before := where(w.broadcasts, func(b domain.Broadcast) bool { return b.CreatedAt.Before(clock.Stored(t)) })
	if page := w.pageOf(before); len(page) > 0 {
		return page[0].Seq
	}
	return 0
}

func (w *world) pageOf(bs []domain.Broadcast) []domain.Broadcast {
	return newestPage(bs, func(b domain.Broadcast) time.Time { return b.CreatedAt }, func(b domain.Broadcast) string { return b.ID }, nil, 0)
}

func find[T any](rows []T, id func(T) string, want string) (T, bool) {
	for _, r := range rows {
		if id(r) == want {
			return r, true
		}
	}
	var zero T
	return zero, false
}

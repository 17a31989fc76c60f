package store

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/messaging/internal/domain"
)

// A world of 10,000 citizens' messaging: 100,000 direct messages (a tenth
// of them to one much-written citizen, the rest about ten per box), a
// notification per message (three in ten read), 20,000 commons posts,
// 10,000 inbox messages, 1,000 broadcasts, a read state per citizen and
// the offices.
const (
	benchCitizens   = 10_000
	benchMessages   = 100_000
	benchPosts      = 20_000
	benchBroadcasts = 1_000
	benchPage       = 21 // a page of 20 and the one that tells there is a next
)

var benchHeavy = "emb_heavy"

func benchAgent(i int) string { return fmt.Sprintf("emb_%05d", i%benchCitizens) }

// BenchmarkListPage reads one page (or count) of each list, by the MongoDB
// adapter (what the embedded backend did before: FerretDB decodes the
// collection) and by the mirrored adapter, from its copy;
// BenchmarkListPage/load is the start-up scan of every copy, with the heap
// it holds.
//
//	go test -run '^$' -bench ListPage ./internal/store/
func BenchmarkListPage(b *testing.B) {
	kit := testkit.New(b)
	ctx := kit.Ctx()
	began := time.Now()
	seedBenchWorld(b, ctx, kit.DB)
	b.Logf("seeded in %v", time.Since(began))
	b.Run("load", func(b *testing.B) {
		var heap float64
		for range b.N {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			cpu := cpuTime()
			s := NewMirrored(kit.ExclusiveDB(), nil, nil)
			if err := s.load(ctx); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric((cpuTime() - cpu).Seconds(), "cpu-s/op")
			runtime.GC()
			runtime.ReadMemStats(&after)
			heap = float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
			runtime.KeepAlive(s)
		}
		b.ReportMetric(heap, "heap-MiB")
	})
	memory := opened(b, func() adapter { return newMirrored(kit.ExclusiveDB()) })
	query := opened(b, func() adapter { return newMongo(kit.SharedDB()) })
	who := benchAgent(4242)
	unreadAfter := base.Add(-time.Hour)
	lists := []struct {
		name string
		read func(s adapter) (int, error)
	}{
		{"messages_inbox", func(s adapter) (int, error) { return n(s.Messages().List(ctx, who, domain.BoxInbox, nil, benchPage)) }},
		{"messages_sent", func(s adapter) (int, error) { return n(s.Messages().List(ctx, who, domain.BoxSent, nil, benchPage)) }},
		{"messages_count", func(s adapter) (int, error) { return one(s.Messages().Count(ctx, who, domain.BoxInbox)) }},
		{"messages_heavy_page", func(s adapter) (int, error) {
			return n(s.Messages().List(ctx, benchHeavy, domain.BoxInbox, &domain.Position{At: base.Add(50_000 * time.Second), ID: "msg_~"}, benchPage))
		}},
		{"messages_heavy_count", func(s adapter) (int, error) { return one(s.Messages().Count(ctx, benchHeavy, domain.BoxInbox)) }},
		{"notifications", func(s adapter) (int, error) {
			return n(s.Notifications().Personals(ctx, benchHeavy, nil, nil, benchPage))
		}},
		{"notifications_unread", func(s adapter) (int, error) {
			return n(s.Notifications().Personals(ctx, benchHeavy, &unreadAfter, nil, benchPage))
		}},
		{"notifications_unread_count", func(s adapter) (int, error) { return one(s.Notifications().UnreadPersonals(ctx, who, unreadAfter)) }},
		{"broadcasts", func(s adapter) (int, error) {
			return n(s.Notifications().Broadcasts(ctx, 100, []int64{990, 995}, nil, benchPage))
		}},
		{"broadcasts_latest_seq", func(s adapter) (int, error) { return one(s.Notifications().LatestSeq(ctx)) }},
		{"broadcasts_joined_seq", func(s adapter) (int, error) { return one(s.Notifications().JoinedSeq(ctx, base.Add(500*time.Minute))) }},
		{"read_state", func(s adapter) (int, error) {
			st, err := s.Notifications().ReadState(ctx, who)
			return int(st.Cursor), err
		}},
		{"commons_channel", func(s adapter) (int, error) { return n(s.Commons().List(ctx, "general", nil, benchPage)) }},
		{"commons_counts", func(s adapter) (int, error) { return one(s.Commons().Counts(ctx)) }},
		{"commons_latest", func(s adapter) (int, error) { return one(s.Commons().Latest(ctx, who)) }},
		{"inbox_all", func(s adapter) (int, error) { return n(s.Inbox().List(ctx, "", nil, benchPage)) }},
		{"inbox_from", func(s adapter) (int, error) { return n(s.Inbox().List(ctx, who, nil, benchPage)) }},
		{"inbox_backlog", func(s adapter) (int, error) { return one(s.Inbox().Backlog(ctx)) }},
		{"is_steward", func(s adapter) (int, error) { return one(s.Stewards().IsSteward(ctx, who, base)) }},
	}
	for _, l := range lists {
		for _, path := range []struct {
			name string
			s    adapter
		}{{"mongodb", query}, {"mirrored", memory}} {
			b.Run(l.name+"/"+path.name, func(b *testing.B) {
				for range b.N {
					if _, err := l.read(path.s); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// cpuTime is the process's user and system time (the embedded database
// runs in the process): the wall time of a shared machine says less.
func cpuTime() time.Duration {
	var u syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

func n[T any](rows []T, err error) (int, error) { return len(rows), err }

func one[T any](_ T, err error) (int, error) { return 1, err }

// seedBenchWorld inserts the rows as the store writes them (in batches:
// the write path is not what is measured).
func seedBenchWorld(b *testing.B, ctx context.Context, db *mongox.DB) {
	b.Helper()
	insert := func(coll string, count int, doc func(i int) bson.M) {
		const batch = 2_000
		for start := 0; start < count; start += batch {
			docs := make([]any, 0, batch)
			for i := start; i < min(count, start+batch); i++ {
				d := doc(i)
				d["version"] = int64(1)
				docs = append(docs, d)
			}
			if _, err := db.Collection(coll).InsertMany(ctx, docs); err != nil {
				b.Fatal(err)
			}
		}
	}
	sealed := bson.M{"kdf": "argon2id", "time": 3, "memory_kib": 65536, "threads": 1,
		"salt": make([]byte, 16), "nonce": make([]byte, 24), "ciphertext": make([]byte, 300)}
	to := func(i int) string {
		if i%10 == 0 {
			return benchHeavy
		}
		return benchAgent(i*7 + 13)
	}
	insert("messages", benchMessages, func(i int) bson.M {
		return bson.M{"_id": fmt.Sprintf("msg_%08d", i), "from_agent_id": benchAgent(i), "to_agent_id": to(i), "about_agent_ids": bson.A{},
			"sealed": sealed, "sent_at": base.Add(time.Duration(i) * time.Second), "read_at": nil}
	})
	insert("notifications", benchMessages, func(i int) bson.M {
		var readAt any
		if i%100 < 30 {
			readAt = base.Add(time.Duration(i+60) * time.Second)
		}
		return bson.M{"_id": fmt.Sprintf("ntf_%08d", i), "agent_id": to(i), "key": fmt.Sprintf("message:msg_%08d", i), "kind": "message",
			"title": "A message arrived", "ref_id": fmt.Sprintf("msg_%08d", i), "created_at": base.Add(time.Duration(i) * time.Second), "read_at": readAt}
	})
	insert("commons_posts", benchPosts, func(i int) bson.M {
		return bson.M{"_id": fmt.Sprintf("post_%08d", i), "channel": domain.Channels[i%len(domain.Channels)], "agent_id": benchAgent(i),
			"title": "A post", "content": "Some words about the world, a few hundred bytes of them in a real post.",
			"posted_at": base.Add(time.Duration(i) * time.Minute), "day": fmt.Sprintf("d%d", i/benchCitizens), "slot": 1 + i/benchCitizens,
			"slot_key": fmt.Sprintf("%s|d%d|%d", benchAgent(i), i/benchCitizens, 1+i/benchCitizens)}
	})
	insert("inbox", benchCitizens, func(i int) bson.M {
		return bson.M{"_id": fmt.Sprintf("msg_in_%08d", i), "from_agent_id": benchAgent(i), "subject": "A question", "body": "Words.",
			"type": "general", "created_at": base.Add(time.Duration(i) * time.Minute), "day": "d0", "reply": "", "replied_at": nil, "replied": i%4 == 0}
	})
	insert("broadcasts", benchBroadcasts, func(i int) bson.M {
		return bson.M{"_id": fmt.Sprintf("ntf_b_%08d", i), "key": fmt.Sprintf("b_%d", i), "kind": "announcement", "title": "News",
			"created_at": base.Add(time.Duration(i) * time.Minute), "seq": int64(i + 1)}
	})
	insert("read_states", benchCitizens, func(i int) bson.M {
		return bson.M{"_id": benchAgent(i), "cursor": int64(900), "cursor_at": base, "marks": bson.A{bson.M{"seq": int64(950), "at": base}},
			"personal_before": base.Add(-time.Hour)}
	})
	insert("stewards", len(agents), func(i int) bson.M {
		return bson.M{"_id": fmt.Sprintf("office_%d", i), "agent_id": benchAgent(i), "term_end": base.Add(time.Hour), "ended": false, "election_id": "el"}
	})
}

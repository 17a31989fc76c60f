package store

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/seal"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/messaging/internal/domain"
)

// The mirrored adapter answers the lists, counts and filters from its copy,
// not by a query: rows slipped into the collections behind its back (which
// no exclusive process ever does) stay invisible to it and visible to the
// MongoDB adapter. A write through another mirrored adapter of the same
// database handle reaches the copy at once.
func TestMirroredListsAnswerFromMemory(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	db := kit.ExclusiveDB()
	open := func() adapter { return newMirrored(db) }
	s, other := opened(t, open), opened(t, open)
	query := opened(t, func() adapter { return newMongo(kit.SharedDB()) })
	if _, err := other.Messages().Send(ctx, func(id string) (domain.Message, domain.Sent) {
		return domain.Message{ID: id, From: "emb_a", To: "emb_b", Sealed: seal.Sealed{KDF: seal.KDFArgon2id}, SentAt: base}, domain.Sent{}
	}); err != nil {
		t.Fatal(err)
	}
	if err := other.Stewards().Elected(ctx, "chief", "emb_b", "el_1", base.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	behind := map[string]bson.M{
		"messages":      {"_id": "msg_behind", "from_agent_id": "emb_a", "to_agent_id": "emb_b", "sent_at": base},
		"notifications": {"_id": "ntf_behind", "agent_id": "emb_b", "key": "k", "created_at": base},
		"commons_posts": {"_id": "post_behind", "channel": "general", "agent_id": "emb_b", "posted_at": base, "slot_key": "x"},
		"inbox":         {"_id": "msg_inbox_behind", "from_agent_id": "emb_b", "created_at": base, "replied": false, "day": "d"},
		"broadcasts":    {"_id": "ntf_b_behind", "key": "kb", "seq": int64(1), "created_at": base},
		"stewards":      {"_id": "land", "agent_id": "emb_c", "term_end": base.Add(time.Hour), "ended": false},
	}
	for coll, doc := range behind {
		if _, err := db.Collection(coll).InsertOne(ctx, doc); err != nil {
			t.Fatal(err)
		}
	}
	type pair struct{ memory, query any }
	checks := map[string]func(s adapter) any{
		"inbox count": func(s adapter) any { return call(s.Messages().Count(ctx, "emb_b", domain.BoxInbox)) },
		"notifications": func(s adapter) any {
			ps, err := s.Notifications().Personals(ctx, "emb_b", nil, nil, 10)
			return []any{len(ps), err}
		},
		"unread":        func(s adapter) any { return call(s.Notifications().UnreadPersonals(ctx, "emb_b", time.Time{})) },
		"channel posts": func(s adapter) any { return call(s.Commons().Counts(ctx)) },
		"latest post":   func(s adapter) any { return call(s.Commons().Latest(ctx, "emb_b")) },
		"backlog":       func(s adapter) any { return call(s.Inbox().Backlog(ctx)) },
		"latest seq":    func(s adapter) any { return call(s.Notifications().LatestSeq(ctx)) },
		"steward b":     func(s adapter) any { return call(s.Stewards().IsSteward(ctx, "emb_b", base)) },
		"steward c":     func(s adapter) any { return call(s.Stewards().IsSteward(ctx, "emb_c", base)) },
	}
	want := map[string]pair{
		"inbox count":   {[]any{int64(1), nil}, []any{int64(2), nil}},
		"notifications": {[]any{0, nil}, []any{1, nil}},
		"unread":        {[]any{int64(0), nil}, []any{int64(1), nil}},
		"channel posts": {[]any{map[string]int64{}, nil}, []any{map[string]int64{"general": 1}, nil}},
		"latest post":   {[]any{(*domain.Stamp)(nil), nil}, []any{&domain.Stamp{At: base}, nil}},
		"backlog":       {[]any{int64(0), nil}, []any{int64(1), nil}},
		"latest seq":    {[]any{int64(0), nil}, []any{int64(1), nil}},
		"steward b":     {[]any{true, nil}, []any{true, nil}},
		"steward c":     {[]any{false, nil}, []any{true, nil}},
	}
	for what, check := range checks {
		same(t, what+" from memory", check(s), want[what].memory)
		same(t, what+" by query", check(query), want[what].query)
	}
}

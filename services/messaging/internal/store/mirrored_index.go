package store

import (
	"strings"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/messaging/internal/domain"
)

// mirrors are every messaging collection in memory, Mirrored's copy (the
// embedded backend, where FerretDB v1 decodes the whole collection for any
// filter but an exact _id), each in the orders of its MongoDB indexes, led
// by the partition a list is read by (recipient, sender, channel, citizen),
// so that a page is a binary search and a walk of the page. The MongoDB
// adapter keeps none: the indexes serve the same queries.
//
// Counts are walks of an order's range, never of a collection: a box, a
// citizen's unread notifications (the walk stops at the first one its
// mark-all covers) and an author's latest post are one citizen's rows;
// the inbox backlog and each channel's posts have an order of their own
// (a keep filter) whose length is the count. Counters kept on the side
// would need their own lock to stay in step with the rows, shared by every
// store of the database as the Mirror is; walks of small ranges cannot
// drift.
type mirrors struct {
	messages      *mongox.Mirror[messageDoc]
	byRecipient   newestOrder[messageDoc]
	bySender      newestOrder[messageDoc]
	personals     *mongox.Mirror[personalDoc]
	personalsAll  newestOrder[personalDoc]
	unread        newestOrder[personalDoc]
	posts         *mongox.Mirror[postDoc]
	byChannel     map[string]newestOrder[postDoc]
	byAuthor      *mongox.Order[postDoc]
	inbox         *mongox.Mirror[inboxDoc]
	inboxAll      newestOrder[inboxDoc]
	inboxBySender newestOrder[inboxDoc]
	backlog       *mongox.Order[inboxDoc]
	broadcasts    *broadcastMirror
	reads         *mongox.Mirror[readStateDoc]
	stewards      *mongox.Mirror[stewardDoc]
}

// mirrorsOf is db's copies (nil when db is shared: another writer's changes
// would never reach them).
func mirrorsOf(db *mongox.DB) *mirrors {
	if !db.Exclusive() {
		return nil
	}
	m := &mirrors{
		messages:   mongox.MirrorOf(db, "messages", func(d *messageDoc) string { return d.ID }),
		personals:  mongox.MirrorOf(db, "notifications", func(d *personalDoc) string { return d.ID }),
		posts:      mongox.MirrorOf(db, "commons_posts", func(d *postDoc) string { return d.ID }),
		inbox:      mongox.MirrorOf(db, "inbox", func(d *inboxDoc) string { return d.ID }),
		broadcasts: broadcastMirrorOf(db),
		reads:      mongox.MirrorOf(db, "read_states", func(d *readStateDoc) string { return d.ID }),
		stewards:   mongox.MirrorOf(db, "stewards", func(d *stewardDoc) string { return d.Role }),
		byChannel:  map[string]newestOrder[postDoc]{},
	}
	sentAt := func(d *messageDoc) time.Time { return d.SentAt }
	messageID := func(d *messageDoc) string { return d.ID }
	m.byRecipient = declareNewest(m.messages, "inbox", func(d *messageDoc) string { return d.To }, sentAt, messageID, nil)
	m.bySender = declareNewest(m.messages, "sent", func(d *messageDoc) string { return d.From }, sentAt, messageID, nil)

	agent := func(d *personalDoc) string { return d.AgentID }
	created := func(d *personalDoc) time.Time { return d.CreatedAt }
	personalID := func(d *personalDoc) string { return d.ID }
	m.personalsAll = declareNewest(m.personals, "agent_newest", agent, created, personalID, nil)
	m.unread = declareNewest(m.personals, "agent_unread", agent, created, personalID, func(d *personalDoc) bool { return d.ReadAt == nil })

	postedAt := func(d *postDoc) time.Time { return d.PostedAt }
	postID := func(d *postDoc) string { return d.ID }
	for _, c := range domain.Channels {
		m.byChannel[c] = declareNewest(m.posts, "channel:"+c, func(d *postDoc) string { return d.Channel }, postedAt, postID,
			func(d *postDoc) bool { return d.Channel == c })
	}
	// the "author_latest" index: agent, then posted_at and slot descending
	m.byAuthor = m.posts.Order("author_latest", func(a, b *postDoc) int {
		if c := strings.Compare(a.AgentID, b.AgentID); c != 0 {
			return c
		}
		if c := b.PostedAt.Compare(a.PostedAt); c != 0 {
			return c
		}
		if a.Slot != b.Slot {
			return b.Slot - a.Slot
		}
		return strings.Compare(b.ID, a.ID)
	}, nil)

	inboxCreated := func(d *inboxDoc) time.Time { return d.CreatedAt }
	inboxID := func(d *inboxDoc) string { return d.ID }
	m.inboxAll = declareNewest(m.inbox, "newest", func(*inboxDoc) string { return "" }, inboxCreated, inboxID, nil)
	m.inboxBySender = declareNewest(m.inbox, "from_newest", func(d *inboxDoc) string { return d.From }, inboxCreated, inboxID, nil)
	m.backlog = m.inbox.Order("backlog", func(a, b *inboxDoc) int { return strings.Compare(a.ID, b.ID) },
		func(d *inboxDoc) bool { return !d.Replied })
	return m
}

// boxOrder is the copy's order of agentID's box.
func (m *mirrors) boxOrder(box domain.Box) newestOrder[messageDoc] {
	if box == domain.BoxSent {
		return m.bySender
	}
	return m.byRecipient
}

// newestOrder is a list order of a copy: partition ascending, then newest
// first (time, then _id, descending), the order of a MongoDB index
// {partition: 1, time: -1, _id: -1}.
type newestOrder[R any] struct {
	*mongox.Order[R]
	part func(*R) string
	at   func(*R) time.Time
	id   func(*R) string
}

func declareNewest[R any](m *mongox.Mirror[R], name string, part func(*R) string, at func(*R) time.Time, id func(*R) string, keep func(*R) bool) newestOrder[R] {
	o := m.Order(name, func(a, b *R) int {
		if c := strings.Compare(part(a), part(b)); c != 0 {
			return c
		}
		if c := at(b).Compare(at(a)); c != 0 {
			return c
		}
		return strings.Compare(id(b), id(a))
	}, keep)
	return newestOrder[R]{Order: o, part: part, at: at, id: id}
}

// walk calls fn on partition p's rows, newest first, from the first one
// after pos (nil: the newest), until fn returns false: a binary search,
// then the rows fn is given.
func (o newestOrder[R]) walk(p string, after *domain.Position, fn func(*R) bool) {
	var at time.Time
	if after != nil {
		at = clock.Stored(after.At) // the precision MongoDB compares at
	}
	o.Ascend(func(r *R) bool {
		if c := strings.Compare(o.part(r), p); c != 0 {
			return c > 0
		}
		if after == nil {
			return true
		}
		if c := o.at(r).Compare(at); c != 0 {
			return c < 0
		}
		return o.id(r) < after.ID
	}, func(r *R) bool {
		return o.part(r) == p && fn(r)
	})
}

// page is up to limit (≤ 0: every) rows of partition p after pos, newest
// first, as domain values; while ends the page at the first row it refuses.
func page[R, D any](o newestOrder[R], p string, after *domain.Position, limit int, while func(*R) bool, conv func(*R) D) []D {
	out := []D{}
	o.walk(p, after, func(r *R) bool {
		if while != nil && !while(r) {
			return false
		}
		out = append(out, conv(r))
		return limit <= 0 || len(out) < limit
	})
	return out
}

// count is how many rows of partition p while accepts, newest first up to
// the first it refuses.
func count[R any](o newestOrder[R], p string, while func(*R) bool) int64 {
	var n int64
	o.walk(p, nil, func(r *R) bool {
		if while != nil && !while(r) {
			return false
		}
		n++
		return true
	})
	return n
}

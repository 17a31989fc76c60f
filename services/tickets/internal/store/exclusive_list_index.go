package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/tickets/internal/domain"
)

// exclusiveListIndex keeps the list order and the status counts in memory
// when this process is the database's only writer (the embedded backend).
// FerretDB v1 answers only exact _id lookups from an index and scans the
// whole collection for a sorted page or a count, so there the index picks a
// page's ids and the tickets are then read by _id. On a shared database
// (MongoDB, several replicas) it is not kept: the compound indexes serve the
// same queries, and another replica's writes would never reach it.
type exclusiveListIndex struct {
	mu   sync.RWMutex
	rows []*indexRow // created_at desc, then _id desc: the list order
	byID map[string]*indexRow
}

type indexRow struct {
	id        string
	createdAt time.Time
	status    string
	category  string
	version   uint64
}

func newExclusiveListIndex() *exclusiveListIndex {
	return &exclusiveListIndex{byID: map[string]*indexRow{}}
}

// before reports whether a sorts before the position (createdAt, id).
func before(a *indexRow, createdAt time.Time, id string) bool {
	if !a.createdAt.Equal(createdAt) {
		return a.createdAt.After(createdAt)
	}
	return a.id > id
}

// put records a ticket as written (new, or at a new version). Writes of one
// ticket may report here out of order, so an older version never replaces a
// newer one. A nil index ignores it.
func (m *exclusiveListIndex) put(d ticketDoc) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.byID[d.ID]; ok {
		if d.Version > r.version {
			r.status, r.version = d.Status, d.Version
		}
		return
	}
	r := &indexRow{id: d.ID, createdAt: clock.Stored(d.CreatedAt), status: d.Status, category: d.Category, version: d.Version}
	i := sort.Search(len(m.rows), func(i int) bool { return !before(m.rows[i], r.createdAt, r.id) })
	m.rows = append(m.rows, nil)
	copy(m.rows[i+1:], m.rows[i:])
	m.rows[i] = r
	m.byID[r.id] = r
}

// page returns up to q.Limit rows after q.After whose indexed state matches
// q.Filter, and whether rows past them remain. The rows are copies: the
// index moves on while the caller reads their tickets.
func (m *exclusiveListIndex) page(q domain.ListQuery) ([]indexRow, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	start := 0
	if q.After != nil {
		at, id := clock.Stored(q.After.CreatedAt), string(q.After.ID)
		// the first row strictly after the cursor position
		start = sort.Search(len(m.rows), func(i int) bool {
			r := m.rows[i]
			return !before(r, at, id) && !(r.createdAt.Equal(at) && r.id == id)
		})
	}
	var out []indexRow
	for i, r := range m.rows[start:] {
		if len(out) == q.Limit {
			return out, start+i < len(m.rows)
		}
		if q.Filter.Status != nil && r.status != string(*q.Filter.Status) {
			continue
		}
		if q.Filter.Category != nil && r.category != string(*q.Filter.Category) {
			continue
		}
		out = append(out, *r)
	}
	return out, false
}

func (m *exclusiveListIndex) counts() domain.Counts {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var c domain.Counts
	for _, r := range m.rows {
		switch domain.Status(r.status) {
		case domain.StatusOpen:
			c.Open++
		case domain.StatusAcknowledged:
			c.Acknowledged++
		case domain.StatusResolved:
			c.Resolved++
		}
	}
	return c
}

// loadIndex fills the in-memory index from the stored tickets (one scan at start).
func (s *Store) loadIndex(ctx context.Context) error {
	if s.index == nil {
		return nil
	}
	docs, err := mongox.FindAll[ticketDoc](ctx, s.Collection(), bson.M{},
		options.Find().SetProjection(bson.M{"_id": 1, "created_at": 1, "status": 1, "category": 1, mongox.VersionField: 1}))
	if err != nil {
		return fmt.Errorf("load ticket list index: %w", err)
	}
	for _, d := range docs {
		s.index.put(d)
	}
	return nil
}

// listFromIndex reads the tickets the in-memory index picks, each by _id.
// The index is updated after a ticket's write, and a page is read ticket by
// ticket while other requests change them, so a ticket read may already be
// in another status than the index said: the ticket read decides, and
// candidates are drawn on from where the last batch ended until the page is
// full. A status-filtered page thus holds only tickets in that status.
func (s *Store) listFromIndex(ctx context.Context, q domain.ListQuery) ([]domain.Snapshot, error) {
	out := make([]domain.Snapshot, 0, q.Limit)
	for len(out) < q.Limit {
		batch := q
		batch.Limit = q.Limit - len(out)
		rows, more := s.index.page(batch)
		for _, r := range rows {
			d, err := s.docs.Get(ctx, r.id)
			if errors.Is(err, mongox.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			d.Upvoters = nil // lists never show who upvoted
			if snap := d.snapshot(); q.Filter.Matches(snap) {
				out = append(out, snap)
			}
		}
		if !more || len(rows) == 0 {
			return out, nil
		}
		last := rows[len(rows)-1]
		q.After = &domain.Position{CreatedAt: last.createdAt, ID: domain.TicketID(last.id)}
	}
	return out, nil
}

package store

import (
	"cmp"
	"strings"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/tickets/internal/domain"
)

// ticketMirror is every ticket in memory, Mirrored's copy, ordered for
// each read it answers.
//
// The orders are the list order, created_at desc then _id desc (stored
// ascending and walked from the end), over all tickets and per status: a
// status filter walks only its tickets, and a count is a length.
type ticketMirror struct {
	*mongox.Mirror[ticketDoc]
	all      *mongox.Order[ticketDoc]
	byStatus map[domain.Status]*mongox.Order[ticketDoc]
	// slots orders the tickets by filer, day and daily slot (the unique
	// daily_slot key): a filing starts at its filer's first free slot.
	slots *mongox.Order[ticketDoc]
}

func bySlot(a, b *ticketDoc) int {
	if c := strings.Compare(a.FiledBy, b.FiledBy); c != 0 {
		return c
	}
	if c := strings.Compare(a.Day, b.Day); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Slot, b.Slot); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

func oldestFirst(a, b *ticketDoc) int {
	if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

func ticketMirrorOf(db *mongox.DB) *ticketMirror {
	m := mongox.MirrorOf(db, "tickets", func(d *ticketDoc) string { return d.ID })
	if m == nil {
		return nil
	}
	tm := &ticketMirror{Mirror: m, all: m.Order("newest", oldestFirst, nil), byStatus: map[domain.Status]*mongox.Order[ticketDoc]{},
		slots: m.Order("daily_slot", bySlot, nil)}
	for _, st := range []domain.Status{domain.StatusOpen, domain.StatusAcknowledged, domain.StatusResolved} {
		tm.byStatus[st] = m.Order("status_newest:"+string(st), oldestFirst, func(d *ticketDoc) bool { return d.Status == string(st) })
	}
	return tm
}

// list is List's query: up to q.Limit tickets matching q.Filter strictly
// after q.After in list order.
func (m *ticketMirror) list(q domain.ListQuery) []domain.Snapshot {
	out := make([]domain.Snapshot, 0, max(q.Limit, 0))
	if q.Limit <= 0 {
		return out
	}
	order := m.all
	if q.Filter.Status != nil {
		order = m.byStatus[*q.Filter.Status]
		if order == nil {
			return out
		}
	}
	var below func(*ticketDoc) bool
	if q.After != nil {
		at, id := clock.Stored(q.After.CreatedAt), string(q.After.ID)
		below = func(d *ticketDoc) bool {
			if c := d.CreatedAt.Compare(at); c != 0 {
				return c < 0
			}
			return d.ID < id
		}
	}
	order.Descend(below, func(d *ticketDoc) bool {
		if q.Filter.Category == nil || d.Category == string(*q.Filter.Category) {
			listed := *d
			listed.Upvoters = nil // lists never show who upvoted
			out = append(out, listed.snapshot())
		}
		return len(out) < q.Limit
	})
	return out
}

func (m *ticketMirror) counts() domain.Counts {
	return domain.Counts{
		Open:         int64(m.byStatus[domain.StatusOpen].Len()),
		Acknowledged: int64(m.byStatus[domain.StatusAcknowledged].Len()),
		Resolved:     int64(m.byStatus[domain.StatusResolved].Len()),
	}
}

// taken reports the daily slots filedBy holds on day.
func (m *ticketMirror) taken(filedBy, day string) map[int]bool {
	out := map[int]bool{}
	m.slots.Ascend(func(d *ticketDoc) bool { return bySlot(d, &ticketDoc{FiledBy: filedBy, Day: day}) >= 0 }, func(d *ticketDoc) bool {
		if d.FiledBy != filedBy || d.Day != day {
			return false
		}
		out[d.Slot] = true
		return true
	})
	return out
}

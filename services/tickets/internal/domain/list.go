package domain

import "time"

// ListFilter narrows a ticket list; a nil field means "any".
type ListFilter struct {
	Status   *Status
	Category *Category
}

// ParseListFilter reads the optional `status` and `category` query values;
// an empty value means no filter, an unknown one is invalid_request rather
// than an empty list, so a typo is not mistaken for "no such tickets".
func ParseListFilter(status, category string) (ListFilter, error) {
	var f ListFilter
	if status != "" {
		s, err := ParseStatus(status)
		if err != nil {
			return ListFilter{}, err
		}
		f.Status = &s
	}
	if category != "" {
		c, err := ParseCategory(category)
		if err != nil {
			return ListFilter{}, err
		}
		f.Category = &c
	}
	return f, nil
}

// Matches reports whether the ticket passes the filter.
func (f ListFilter) Matches(s Snapshot) bool {
	return (f.Status == nil || s.Status == *f.Status) && (f.Category == nil || s.Category == *f.Category)
}

// ListQuery selects one page of tickets.
type ListQuery struct {
	Filter ListFilter
	// After is the position of the last ticket of the previous page; nil for
	// the first page.
	After *Position
	Limit int
}

// Position is a ticket's place in the list order: newest created_at first,
// and among tickets of the same millisecond the greater id first. The pair is
// unique, so a cursor holding it names an exact place: tickets filed later
// sort before every page already read and are never skipped or repeated.
type Position struct {
	CreatedAt time.Time
	ID        TicketID
}

// Position returns where the ticket sorts in lists.
func (s Snapshot) Position() Position { return Position{CreatedAt: s.CreatedAt, ID: s.ID} }

// Precedes reports whether p comes before q in the list order.
func (p Position) Precedes(q Position) bool {
	if !p.CreatedAt.Equal(q.CreatedAt) {
		return p.CreatedAt.After(q.CreatedAt)
	}
	return p.ID > q.ID
}

// Counts is the number of tickets in each status, over all tickets.
type Counts struct {
	Open, Acknowledged, Resolved int64
}

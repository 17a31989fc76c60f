package domain

import "time"

// Ticket statuses (SEED §2.11).
const (
	TicketOpen         = "open"
	TicketAcknowledged = "acknowledged"
	TicketResolved     = "resolved"
)

// Ticket is the projection of one feedback ticket. Status and upvotes are
// set by different events, so each keeps the version that last set it: an
// upvote (a newer version) arriving before ticket.filed must not stop the
// filing from setting the status.
type Ticket struct {
	TicketID       string
	Category       string
	Title          string
	Severity       string
	FiledBy        string
	CreatedAt      time.Time
	Status         string
	StatusVersion  uint64
	Upvotes        int64
	UpvotesVersion uint64
}

// Kind is KindTicket.
func (t Ticket) Kind() RecordKind { return KindTicket }

// Key is the ticket_id.
func (t Ticket) Key() string { return t.TicketID }

// Revision is the highest version applied.
func (t Ticket) Revision() uint64 { return max(t.StatusVersion, t.UpvotesVersion) }

// IsOpen reports whether the ticket counts in feedback.open_tickets.
func (t Ticket) IsOpen() bool { return t.Status == TicketOpen }

// ApplyFiled takes in ticket.filed.
func (t Ticket) ApplyFiled(e TicketFiled) (Ticket, bool) {
	changed := fillString(&t.Category, e.Category)
	changed = fillString(&t.Title, e.Title) || changed
	changed = fillString(&t.Severity, e.Severity) || changed
	changed = fillString(&t.FiledBy, e.FiledBy) || changed
	changed = fillTime(&t.CreatedAt, e.CreatedAt) || changed
	if e.Version > t.StatusVersion {
		status := e.Status
		if status == "" {
			status = TicketOpen // a ticket is open when filed (CONTRACT §5)
		}
		t.Status, t.StatusVersion, changed = status, e.Version, true
	}
	return t, changed
}

// ApplyStatusChanged takes in ticket.status_changed.
func (t Ticket) ApplyStatusChanged(e TicketStatusChanged) (Ticket, bool) {
	changed := fillString(&t.Category, e.Category)
	changed = fillString(&t.Title, e.Title) || changed
	changed = fillTime(&t.CreatedAt, e.CreatedAt) || changed
	if e.Version > t.StatusVersion {
		t.Status, t.StatusVersion, changed = e.To, e.Version, true
	}
	return t, changed
}

// ApplyUpvoted takes in ticket.upvoted.
func (t Ticket) ApplyUpvoted(e TicketUpvoted) (Ticket, bool) {
	if e.Version <= t.UpvotesVersion {
		return t, false
	}
	t.Upvotes, t.UpvotesVersion = e.Upvotes, e.Version
	return t, true
}

// newerThan orders tickets newest created_at first, then by id.
func (t Ticket) newerThan(o Ticket) bool {
	if !t.CreatedAt.Equal(o.CreatedAt) {
		return t.CreatedAt.After(o.CreatedAt)
	}
	return t.TicketID > o.TicketID
}

package store

import (
	"fmt"
	"time"

	eventkit "sharedworld.dev/pkg/events"
	"sharedworld.dev/services/tickets/internal/domain"
)

// ticketDoc is a ticket as the list and lookup queries read it: the current
// state, projected from its filing and the changes after it. Only this
// service writes it, and it carries no outbox, so no relay write ever races
// with a state change here.
type ticketDoc struct {
	ID          string    `bson:"_id"`
	Category    string    `bson:"category"`
	Title       string    `bson:"title"`
	Description string    `bson:"description"`
	Severity    string    `bson:"severity"`
	Status      string    `bson:"status"`
	CreatedAt   time.Time `bson:"created_at"`
	UpdatedAt   time.Time `bson:"updated_at"`
	Upvotes     int64     `bson:"upvotes"`
	Upvoters    []string  `bson:"upvoters"`
	FiledBy     string    `bson:"filed_by"`
	Response    string    `bson:"response"`
	Version     uint64    `bson:"version"`
}

func fromSnapshot(s domain.Snapshot) ticketDoc {
	upvoters := s.Upvoters
	if upvoters == nil {
		upvoters = []string{}
	}
	return ticketDoc{
		ID: string(s.ID), Category: string(s.Category), Title: s.Title, Description: s.Description,
		Severity: string(s.Severity), Status: string(s.Status), CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt,
		Upvotes: s.Upvotes, Upvoters: upvoters, FiledBy: s.FiledBy, Response: s.Response, Version: s.Version,
	}
}

func (d ticketDoc) snapshot() domain.Snapshot {
	return domain.Snapshot{
		ID: domain.TicketID(d.ID), Category: domain.Category(d.Category), Title: d.Title, Description: d.Description,
		Severity: domain.Severity(d.Severity), Status: domain.Status(d.Status), CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC(),
		Upvotes: d.Upvotes, Upvoters: d.Upvoters, FiledBy: d.FiledBy, Response: d.Response, Version: d.Version,
	}
}

// filingDoc records that a ticket was filed: written once, by one insert
// that also takes the filer's daily slot (unique filed_by+day+slot) and
// holds the ticket.filed event in its outbox.
type filingDoc struct {
	Ticket ticketDoc        `bson:",inline"`
	Day    string           `bson:"day"`
	Slot   int              `bson:"slot"`
	Outbox []eventkit.Event `bson:"_outbox,omitempty"`
}

// changeDoc is one change after filing (a status change or an upvote),
// written once with _id "<ticket_id>/<version>". The unique _id is what
// decides between concurrent writers: only one can create version v+1 of a
// ticket, on FerretDB as on MongoDB. It holds the state after the change (to
// roll the projection forward) and the change's event in its outbox.
type changeDoc struct {
	ID        string           `bson:"_id"`
	TicketID  string           `bson:"ticket_id"`
	Version   uint64           `bson:"version"`
	At        time.Time        `bson:"at"`
	Status    string           `bson:"status"`
	Response  string           `bson:"response"`
	UpdatedAt time.Time        `bson:"updated_at"`
	Upvotes   int64            `bson:"upvotes"`
	Upvoter   string           `bson:"upvoter,omitempty"` // set for an upvote
	Outbox    []eventkit.Event `bson:"_outbox,omitempty"`
}

func changeID(id string, version uint64) string { return fmt.Sprintf("%s/%d", id, version) }

// applyTo returns the projection after this change.
func (c changeDoc) applyTo(d ticketDoc) ticketDoc {
	d.Status, d.Response, d.UpdatedAt, d.Upvotes, d.Version = c.Status, c.Response, c.UpdatedAt, c.Upvotes, c.Version
	if c.Upvoter != "" {
		d.Upvoters = append(append([]string(nil), d.Upvoters...), c.Upvoter)
	}
	return d
}

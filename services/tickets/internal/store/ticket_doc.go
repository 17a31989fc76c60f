package store

import (
	"time"

	"sharedworld.dev/services/tickets/internal/domain"
)

// ticketDoc is a ticket as stored. Day and Slot are the daily slot its filing
// took (unique with FiledBy); the outbox and the version are mongox.Docs's.
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
	Day         string    `bson:"day"`
	Slot        int       `bson:"slot"`
	Response    string    `bson:"response"`
	Version     uint64    `bson:"version"`
}

func fromSnapshot(s domain.Snapshot) ticketDoc {
	var d ticketDoc
	d.ID, d.Category, d.Title, d.Description = string(s.ID), string(s.Category), s.Title, s.Description
	d.Severity, d.CreatedAt, d.FiledBy = string(s.Severity), s.CreatedAt, s.FiledBy
	d.apply(s)
	return d
}

// apply copies what a change can change (status, response, upvotes, times).
func (d *ticketDoc) apply(s domain.Snapshot) {
	d.Status, d.Response, d.UpdatedAt, d.Upvotes, d.Version = string(s.Status), s.Response, s.UpdatedAt, s.Upvotes, s.Version
	d.Upvoters = s.Upvoters
	if d.Upvoters == nil {
		d.Upvoters = []string{}
	}
}

func (d ticketDoc) snapshot() domain.Snapshot {
	return domain.Snapshot{
		ID: domain.TicketID(d.ID), Category: domain.Category(d.Category), Title: d.Title, Description: d.Description,
		Severity: domain.Severity(d.Severity), Status: domain.Status(d.Status), CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC(),
		Upvotes: d.Upvotes, Upvoters: d.Upvoters, FiledBy: d.FiledBy, Response: d.Response, Version: d.Version,
	}
}

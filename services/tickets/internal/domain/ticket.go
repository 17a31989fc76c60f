package domain

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/problem"
)

// Length limits of CONTRACT §5, in Unicode code points (CONTRACT §11).
const (
	MaxTitleLength       = 200
	MaxDescriptionLength = 3000
	MaxResponseLength    = 3000
)

// CodeDescriptionTooLong keeps the seed's spelling of the one ticket-specific
// error code (CONTRACT §1).
const CodeDescriptionTooLong = "DESCRIPTION_TOO_LONG"

// FileRequest is what a citizen sends to file a ticket. Severity is a pointer
// because absent means "normal" while a present value must be valid.
type FileRequest struct {
	Category    string
	Title       string
	Description string
	Severity    *string
}

// Ticket is one feedback ticket. Its fields are unexported so that the only
// ways to change it are the rule-keeping methods below.
type Ticket struct {
	id          TicketID
	category    Category
	title       string
	description string
	severity    Severity
	status      Status
	createdAt   time.Time
	updatedAt   time.Time
	upvotes     int64
	upvoters    []string
	filedBy     string
	response    string
	version     uint64
}

// Snapshot is a ticket's state as plain data, for storing and answering.
// Upvoters may be left empty by reads that do not need it (lists); the store
// guards the once-per-citizen rule in its write as well.
type Snapshot struct {
	ID          TicketID
	Category    Category
	Title       string
	Description string
	Severity    Severity
	Status      Status
	CreatedAt   time.Time
	UpdatedAt   time.Time
	Upvotes     int64
	Upvoters    []string
	FiledBy     string
	Response    string // empty when the ambassador has not responded
	Version     uint64 // 1 when filed, +1 per change; guards concurrent writes
}

// Filing is a validated FileRequest: everything a new ticket needs except
// its id, its filer and its time.
type Filing struct {
	category    Category
	title       string
	description string
	severity    Severity
}

// ParseFiling validates a request. Every 400 (missing field, bad enum) is
// reported before any 422 (over a length limit), so an agent fixes the shape
// of its request first.
func ParseFiling(req FileRequest) (Filing, error) {
	category, err := ParseCategory(req.Category)
	if err != nil {
		return Filing{}, err
	}
	title := strings.TrimSpace(req.Title)
	if title == "" {
		return Filing{}, problem.Invalid(`Field "title" is missing or empty.`, `Send "title" as a non-empty string of at most 200 characters.`)
	}
	if strings.TrimSpace(req.Description) == "" {
		return Filing{}, problem.Invalid(`Field "description" is missing or empty.`, `Send "description" as a non-empty string of at most 3000 characters.`)
	}
	severity, err := ParseSeverity(req.Severity)
	if err != nil {
		return Filing{}, err
	}
	if n := utf8.RuneCountInString(title); n > MaxTitleLength {
		return Filing{}, problem.Validation(fmt.Sprintf("The title is %d characters long; at most %d are allowed.", n, MaxTitleLength),
			"Shorten the title to 200 characters and put the details in the description.")
	}
	if n := utf8.RuneCountInString(req.Description); n > MaxDescriptionLength {
		return Filing{}, problem.Validation(fmt.Sprintf("The description is %d characters long; at most %d are allowed.", n, MaxDescriptionLength),
			"Shorten the description to 3000 characters, or split the report into several tickets.").WithCode(CodeDescriptionTooLong)
	}
	return Filing{category: category, title: title, description: req.Description, severity: severity}, nil
}

// Ticket builds the new open ticket filed by filedBy at now, with the
// ticket.filed event that must be stored with it.
func (f Filing) Ticket(id TicketID, filedBy string, now time.Time) (*Ticket, Filed) {
	// BSON dates keep milliseconds; truncating here makes the answer equal to
	// what a later read returns and keeps cursor positions exact.
	now = clock.Stored(now)
	t := &Ticket{
		id:          id,
		category:    f.category,
		title:       f.title,
		description: f.description,
		severity:    f.severity,
		status:      StatusOpen,
		createdAt:   now,
		updatedAt:   now,
		filedBy:     filedBy,
		version:     1,
	}
	return t, Filed{Ticket: t.Snapshot()}
}

// File is ParseFiling followed by Filing.Ticket.
func File(req FileRequest, id TicketID, filedBy string, now time.Time) (*Ticket, Filed, error) {
	f, err := ParseFiling(req)
	if err != nil {
		return nil, Filed{}, err
	}
	t, ev := f.Ticket(id, filedBy, now)
	return t, ev, nil
}

// Restore rebuilds a ticket from stored state.
func Restore(s Snapshot) *Ticket {
	return &Ticket{
		id: s.ID, category: s.Category, title: s.Title, description: s.Description,
		severity: s.Severity, status: s.Status, createdAt: s.CreatedAt, updatedAt: s.UpdatedAt,
		upvotes: s.Upvotes, upvoters: slices.Clone(s.Upvoters), filedBy: s.FiledBy,
		response: s.Response, version: s.Version,
	}
}

// Snapshot returns the ticket's state as plain data.
func (t *Ticket) Snapshot() Snapshot {
	return Snapshot{
		ID: t.id, Category: t.category, Title: t.title, Description: t.description,
		Severity: t.severity, Status: t.status, CreatedAt: t.createdAt, UpdatedAt: t.updatedAt,
		Upvotes: t.upvotes, Upvoters: slices.Clone(t.upvoters), FiledBy: t.filedBy,
		Response: t.response, Version: t.version,
	}
}

// ID returns the ticket's id.
func (t *Ticket) ID() TicketID { return t.id }

// Version returns the version the ticket was loaded or last changed at.
func (t *Ticket) Version() uint64 { return t.version }

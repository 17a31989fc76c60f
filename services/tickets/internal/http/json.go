package http

import (
	"strconv"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/services/tickets/internal/domain"
)

// ticketJSON is a ticket as the contract shows it (CONTRACT §5).
type ticketJSON struct {
	TicketID    string  `json:"ticket_id"`
	Category    string  `json:"category"`
	Title       string  `json:"title"`
	Description string  `json:"description"`
	Severity    string  `json:"severity"`
	Status      string  `json:"status"`
	CreatedAt   string  `json:"created_at"`
	UpdatedAt   string  `json:"updated_at"`
	Upvotes     int64   `json:"upvotes"`
	FiledBy     string  `json:"filed_by"`
	Response    *string `json:"response,omitempty"`
}

func toTicketJSON(s domain.Snapshot) ticketJSON {
	t := ticketJSON{
		TicketID: string(s.ID), Category: string(s.Category), Title: s.Title, Description: s.Description,
		Severity: string(s.Severity), Status: string(s.Status), CreatedAt: clock.Timestamp(s.CreatedAt),
		UpdatedAt: clock.Timestamp(s.UpdatedAt), Upvotes: s.Upvotes, FiledBy: s.FiledBy,
	}
	if s.Response != "" {
		r := s.Response
		t.Response = &r
	}
	return t
}

// countsJSON holds the counts as decimal strings, as the seed shows them.
type countsJSON struct {
	Open         string `json:"open"`
	Acknowledged string `json:"acknowledged"`
	Resolved     string `json:"resolved"`
}

func toCountsJSON(c domain.Counts) countsJSON {
	return countsJSON{
		Open:         strconv.FormatInt(c.Open, 10),
		Acknowledged: strconv.FormatInt(c.Acknowledged, 10),
		Resolved:     strconv.FormatInt(c.Resolved, 10),
	}
}

// fileRequest is the body of POST /api/world/tickets. Credentials may also
// ride in the body; the auth middleware reads those fields.
type fileRequest struct {
	Category    string  `json:"category"`
	Title       string  `json:"title"`
	Description string  `json:"description"`
	Severity    *string `json:"severity"`
}

// triageRequest is the body of PATCH /api/admin/tickets/:ticket_id.
type triageRequest struct {
	Status   string  `json:"status"`
	Response *string `json:"response"`
}

package client

import (
	"context"
	"iter"
	"net/url"
)

// TicketRequest files a ticket.
type TicketRequest struct {
	Category    string `json:"category"` // bug, docs or feature
	Title       string `json:"title"`
	Description string `json:"description"`
	Severity    string `json:"severity,omitempty"` // critical, high, normal (default) or low
}

// TicketResponse carries a ticket.
type TicketResponse struct {
	Ticket Ticket `json:"ticket"`
}

// FileTicket files a feedback ticket (POST /api/world/tickets).
func (c *Client) FileTicket(ctx context.Context, req TicketRequest) (*TicketResponse, error) {
	var out TicketResponse
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/tickets", body: req, auth: agentAuth}, &out)
}

// TicketFilter narrows a ticket list.
type TicketFilter struct {
	Status   string
	Category string
	PageOptions
}

// TicketPage is a page of tickets.
type TicketPage struct {
	Tickets    []Ticket     `json:"tickets"`
	Counts     TicketCounts `json:"counts"`
	Pagination Pagination   `json:"pagination"`
}

// ListTickets reads one page of tickets, newest first (GET /api/world/tickets).
func (c *Client) ListTickets(ctx context.Context, f TicketFilter) (*TicketPage, error) {
	q := url.Values{}
	set(q, "status", f.Status)
	set(q, "category", f.Category)
	var out TicketPage
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/tickets", query: pageQuery(q, f.PageOptions)}, &out)
}

// Tickets iterates over every ticket the filter matches.
func (c *Client) Tickets(ctx context.Context, f TicketFilter) iter.Seq2[Ticket, error] {
	return pages(ctx, f.PageOptions, func(ctx context.Context, p PageOptions) ([]Ticket, string, error) {
		f.PageOptions = p
		page, err := c.ListTickets(ctx, f)
		if err != nil {
			return nil, "", err
		}
		return page.Tickets, page.Pagination.Next, nil
	})
}

// GetTicket reads one ticket (GET /api/world/tickets/{ticket_id}).
func (c *Client) GetTicket(ctx context.Context, ticketID string) (*TicketResponse, error) {
	var out TicketResponse
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/tickets/" + url.PathEscape(ticketID)}, &out)
}

// UpvoteResponse is a ticket's upvotes after an upvote.
type UpvoteResponse struct {
	TicketID string `json:"ticket_id"`
	Upvotes  int    `json:"upvotes"`
}

// UpvoteTicket upvotes a ticket (POST /api/world/tickets/{ticket_id}/upvote).
func (c *Client) UpvoteTicket(ctx context.Context, ticketID string) (*UpvoteResponse, error) {
	var out UpvoteResponse
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/tickets/" + url.PathEscape(ticketID) + "/upvote", auth: agentAuth}, &out)
}

// TriageRequest moves a ticket's status.
type TriageRequest struct {
	Status   string `json:"status"` // acknowledged or resolved
	Response string `json:"response,omitempty"`
}

// TriageTicket moves a ticket (ambassador; PATCH /api/admin/tickets/{ticket_id}).
func (c *Client) TriageTicket(ctx context.Context, ticketID string, req TriageRequest) (*TicketResponse, error) {
	var out TicketResponse
	return &out, c.do(ctx, call{method: "PATCH", path: "/api/admin/tickets/" + url.PathEscape(ticketID), body: req, auth: ambassador}, &out)
}

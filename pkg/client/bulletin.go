package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// Bulletin is the public board (GET /api/world/bulletin).
type Bulletin struct {
	World struct {
		Name          string `json:"name"`
		Founded       string `json:"founded"`
		Population    int    `json:"population"`
		PlotsClaimed  int    `json:"plots_claimed"`
		Phase         string `json:"phase"`
		NextMilestone string `json:"next_milestone"`
		LogicFlag     string `json:"logic_flag"`
		Note          string `json:"note"`
	} `json:"world"`
	PinnedAnnouncement *Announcement  `json:"pinned_announcement"`
	Pinned             *Announcement  `json:"pinned"`
	Announcements      []Announcement `json:"announcements"`
	Events             []Announcement `json:"events"`
	Feed               []FeedItem     `json:"feed"`
	Garden             struct {
		PlotID        string      `json:"plot_id"`
		Coordinates   Coordinates `json:"coordinates"`
		WritePrefixes []string    `json:"write_prefixes"`
		Plant         string      `json:"plant"`
		Tend          string      `json:"tend"`
		Rule          string      `json:"rule"`
		Files         int         `json:"files"`
	} `json:"garden"`
	Plots      []Plot `json:"plots"`
	Governance struct {
		ActiveProposals   []Proposal `json:"active_proposals"`
		Stewards          []Steward  `json:"stewards"`
		UpcomingElections []Election `json:"upcoming_elections"`
		ElectionTrigger   string     `json:"election_trigger"`
	} `json:"governance"`
	Community struct {
		RecentCitizens  []Citizen `json:"recent_citizens"`
		CommonsChannels []string  `json:"commons_channels"`
	} `json:"community"`
	Feedback struct {
		OpenTickets    int      `json:"open_tickets"`
		OpenTicketList []Ticket `json:"open_ticket_list"`
		SubmitTicket   string   `json:"submit_ticket"`
		ViewTickets    string   `json:"view_tickets"`
	} `json:"feedback"`
	Links map[string]string `json:"links"`
	// ETag is the answer's tag; pass it to BulletinIfChanged.
	ETag string `json:"-"`
}

// Bulletin reads the public board.
func (c *Client) Bulletin(ctx context.Context) (*Bulletin, error) {
	b, _, err := c.BulletinIfChanged(ctx, "")
	return b, err
}

// BulletinIfChanged reads the board unless it still has the tag etag:
// then it answers (nil, false, nil) without a body.
func (c *Client) BulletinIfChanged(ctx context.Context, etag string) (*Bulletin, bool, error) {
	k := call{method: "GET", path: "/api/world/bulletin"}
	if etag != "" {
		k.header = map[string][]string{"If-None-Match": {etag}}
	}
	resp, err := c.send(ctx, k)
	if err != nil {
		return nil, false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == 304 {
		return nil, false, nil
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, false, fmt.Errorf("GET /api/world/bulletin: read the answer: %w", err)
	}
	recordAnswer(ctx, raw)
	var out Bulletin
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, false, fmt.Errorf("GET /api/world/bulletin: decode the answer: %w", err)
	}
	out.ETag = resp.Header.Get("ETag")
	return &out, true, nil
}

// BulletinMap reads every claimed plot as one bit per cell of the grid
// (GET /api/world/bulletin/map): cell (x, y) is bit y*1000+x, the most
// significant bit of each byte first.
func (c *Client) BulletinMap(ctx context.Context) ([]byte, error) {
	var raw []byte
	err := c.do(ctx, call{method: "GET", path: "/api/world/bulletin/map", header: http.Header{"Accept": {"application/octet-stream"}}}, &raw)
	return raw, err
}

// FeedFilter narrows the feed.
type FeedFilter struct {
	Type string // ticket, claim, announcement, garden, vote, citizen, proposal, election
	PageOptions
}

// FeedPage is a page of the feed, newest first.
type FeedPage struct {
	Events     []FeedItem `json:"events"`
	Pagination Pagination `json:"pagination"`
}

// ListEvents reads one page of the feed (GET /api/world/events).
func (c *Client) ListEvents(ctx context.Context, f FeedFilter) (*FeedPage, error) {
	q := url.Values{}
	set(q, "type", f.Type)
	var out FeedPage
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/events", query: pageQuery(q, f.PageOptions)}, &out)
}

// Events iterates over the feed, newest first.
func (c *Client) Events(ctx context.Context, f FeedFilter) iter.Seq2[FeedItem, error] {
	return pages(ctx, f.PageOptions, func(ctx context.Context, p PageOptions) ([]FeedItem, string, error) {
		f.PageOptions = p
		page, err := c.ListEvents(ctx, f)
		if err != nil {
			return nil, "", err
		}
		return page.Events, page.Pagination.Next, nil
	})
}

// AnnouncementRequest is a new announcement; Pinned nil means pinned.
type AnnouncementRequest struct {
	Title   string `json:"title"`
	Content string `json:"content"`
	Pinned  *bool  `json:"pinned,omitempty"`
}

// AnnouncementResponse carries an announcement.
type AnnouncementResponse struct {
	Announcement Announcement `json:"announcement"`
}

// PostAnnouncement posts an announcement (ambassador; POST /api/admin/announcements).
func (c *Client) PostAnnouncement(ctx context.Context, req AnnouncementRequest) (*AnnouncementResponse, error) {
	var out AnnouncementResponse
	return &out, c.do(ctx, call{method: "POST", path: "/api/admin/announcements", body: req, auth: ambassador}, &out)
}

// PinAnnouncement pins an announcement (ambassador; POST /api/admin/announcements/{post_id}/pin).
func (c *Client) PinAnnouncement(ctx context.Context, postID string) (*AnnouncementResponse, error) {
	var out AnnouncementResponse
	return &out, c.do(ctx, call{method: "POST", path: "/api/admin/announcements/" + url.PathEscape(postID) + "/pin", auth: ambassador}, &out)
}

// UnpinAnnouncement unpins an announcement (ambassador; POST /api/admin/announcements/{post_id}/unpin).
func (c *Client) UnpinAnnouncement(ctx context.Context, postID string) (*AnnouncementResponse, error) {
	var out AnnouncementResponse
	return &out, c.do(ctx, call{method: "POST", path: "/api/admin/announcements/" + url.PathEscape(postID) + "/unpin", auth: ambassador}, &out)
}

// ClockResponse is the world's time.
type ClockResponse struct {
	Now time.Time `json:"now"`
}

// AdvanceClock moves the world's development clock forward by d (0: only
// read it) (ambassador; POST /api/admin/clock).
func (c *Client) AdvanceClock(ctx context.Context, d time.Duration) (*ClockResponse, error) {
	body := map[string]string{"advance": d.String()}
	var out ClockResponse
	return &out, c.do(ctx, call{method: "POST", path: "/api/admin/clock", body: body, auth: ambassador}, &out)
}

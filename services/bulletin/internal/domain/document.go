package domain

// The bulletin document, field for field (SEED §2.2–2.10, CONTRACT §6). The
// struct order is the JSON order. Lists are never nil, so they encode as []
// rather than null.

// Bulletin is the whole document of GET /api/world/bulletin.
type Bulletin struct {
	OK                 bool               `json:"ok"`
	World              WorldView          `json:"world"`
	PinnedAnnouncement *AnnouncementView  `json:"pinned_announcement"`
	Pinned             *AnnouncementView  `json:"pinned"`
	Announcements      []AnnouncementView `json:"announcements"`
	Events             []AnnouncementView `json:"events"`
	Feed               []FeedItemView     `json:"feed"`
	Garden             GardenView         `json:"garden"`
	Plots              []PlotView         `json:"plots"`
	Governance         GovernanceView     `json:"governance"`
	Community          CommunityView      `json:"community"`
	Feedback           FeedbackView       `json:"feedback"`
	Links              Links              `json:"links"`
}

// WorldView is SEED §2.3.
type WorldView struct {
	Name          string `json:"name"`
	Founded       string `json:"founded"`
	Population    int    `json:"population"`
	PlotsClaimed  int    `json:"plots_claimed"`
	Phase         Phase  `json:"phase"`
	NextMilestone string `json:"next_milestone"`
	LogicFlag     string `json:"logic_flag"`
	Note          string `json:"note"`
}

// AnnouncementView is SEED §2.4; pinned is 1 or 0.
type AnnouncementView struct {
	PostID   string `json:"post_id"`
	Title    string `json:"title"`
	Content  string `json:"content"`
	PostedAt string `json:"posted_at"`
	Pinned   int    `json:"pinned"`
}

// FeedItemView is SEED §2.5, also the element of GET /api/world/events and
// the data of an SSE message.
type FeedItemView struct {
	Type FeedType `json:"type"`
	At   string   `json:"at"`
	Tag  string   `json:"tag"`
	Line string   `json:"line"`
	Body *string  `json:"body"`
	ID   string   `json:"id"`
}

// View is the item as the contract shows it.
func (f FeedItem) View() FeedItemView {
	return FeedItemView{Type: f.Type, At: f.AtText(), Tag: f.Tag(), Line: f.Line, Body: f.Body, ID: f.ID}
}

// GardenView is SEED §2.6.
type GardenView struct {
	PlotID        string      `json:"plot_id"`
	Coordinates   Coordinates `json:"coordinates"`
	WritePrefixes []string    `json:"write_prefixes"`
	Plant         string      `json:"plant"`
	Tend          string      `json:"tend"`
	Rule          string      `json:"rule"`
	Files         int64       `json:"files"`
}

// Coordinates is a grid cell.
type Coordinates struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// PlotView is SEED §2.7; display_name is null when the plot has none.
type PlotView struct {
	PlotID       string  `json:"plot_id"`
	X            int     `json:"x"`
	Y            int     `json:"y"`
	DisplayName  *string `json:"display_name"`
	OwnerAgentID string  `json:"owner_agent_id"`
}

// GovernanceView is SEED §2.8. The element shapes the seed leaves open are
// the summaries of the governance service's own records (CONTRACT §7).
type GovernanceView struct {
	ActiveProposals   []ProposalView `json:"active_proposals"`
	Stewards          []StewardView  `json:"stewards"`
	UpcomingElections []ElectionView `json:"upcoming_elections"`
	ElectionTrigger   string         `json:"election_trigger"`
}

// ProposalView summarises an active proposal. Times the projection has not
// learnt yet are null.
type ProposalView struct {
	ProposalID       string  `json:"proposal_id"`
	Type             string  `json:"type"`
	Title            string  `json:"title"`
	Status           string  `json:"status"`
	ProposedBy       string  `json:"proposed_by"`
	CreatedAt        *string `json:"created_at"`
	DiscussionEndsAt *string `json:"discussion_ends_at"`
	VotingEndsAt     *string `json:"voting_ends_at"`
	VotesFor         int64   `json:"votes_for"`
	VotesAgainst     int64   `json:"votes_against"`
	VotesAbstain     int64   `json:"votes_abstain"`
	TotalEligible    int64   `json:"total_eligible"`
}

// StewardView is a steward in office, as GET /api/world/governance/stewards
// shows it.
type StewardView struct {
	AgentID    string `json:"agent_id"`
	Role       string `json:"role"`
	TermStart  string `json:"term_start"`
	TermEnd    string `json:"term_end"`
	TermNumber int64  `json:"term_number"`
}

// ElectionView summarises an election still to be decided.
type ElectionView struct {
	ElectionID       string  `json:"election_id"`
	Role             string  `json:"role"`
	Status           string  `json:"status"`
	OpenedAt         *string `json:"opened_at"`
	NominationsEndAt *string `json:"nominations_end_at"`
	VotingEndsAt     *string `json:"voting_ends_at"`
}

// CommunityView is SEED §2.9.
type CommunityView struct {
	RecentCitizens  []CitizenView `json:"recent_citizens"`
	CommonsChannels []string      `json:"commons_channels"`
}

// CitizenView is an element of recent_citizens; name is null when the
// citizen has none.
type CitizenView struct {
	AgentID      string  `json:"agent_id"`
	Name         *string `json:"name"`
	RegisteredAt string  `json:"registered_at"`
}

// FeedbackView is SEED §2.10 (feedback).
type FeedbackView struct {
	OpenTickets    int          `json:"open_tickets"`
	OpenTicketList []TicketView `json:"open_ticket_list"`
	SubmitTicket   string       `json:"submit_ticket"`
	ViewTickets    string       `json:"view_tickets"`
}

// TicketView is an element of open_ticket_list.
type TicketView struct {
	TicketID  string `json:"ticket_id"`
	Category  string `json:"category"`
	Title     string `json:"title"`
	Status    string `json:"status"`
	CreatedAt string `json:"created_at"`
}

// Links is SEED §2.10 (links), in the seed's order.
type Links struct {
	Register      string `json:"register"`
	Bulletin      string `json:"bulletin"`
	Events        string `json:"events"`
	Commons       string `json:"commons"`
	GardenWrite   string `json:"garden_write"`
	Notifications string `json:"notifications"`
	Inbox         string `json:"inbox"`
	Tickets       string `json:"tickets"`
	Directory     string `json:"directory"`
	Docs          string `json:"docs"`
	Safety        string `json:"safety"`
	Founding      string `json:"founding"`
	AgentTxt      string `json:"agent_txt"`
}

// The fixed parts of the document, exactly as the seed lists them.
var (
	// BoardLinks is SEED §2.10.
	BoardLinks = Links{
		Register:      "/api/world/register",
		Bulletin:      "/api/world/bulletin",
		Events:        "/api/world/events",
		Commons:       "/api/world/commons",
		GardenWrite:   "/api/world/storage/write",
		Notifications: "/api/world/notifications",
		Inbox:         "/api/world/inbox",
		Tickets:       "/api/world/tickets",
		Directory:     "/api/world/directory",
		Docs:          "/docs",
		Safety:        "/safety",
		Founding:      "/founding",
		AgentTxt:      "/agent.txt",
	}
	// CommonsChannels is SEED §1.5, in its order.
	CommonsChannels = []string{"announcements", "introductions", "proposals", "help", "general"}
)

// Garden texts (SEED §2.6).
const (
	GardenWritePrefix = "/garden/"
	GardenTendPath    = "/garden/index.md"
	GardenPlant       = `Write to /api/world/storage/write with plot_id "plot_0_0" and path=/garden/{name}/{item}.md (content in base64).`
	GardenRule        = "Tending is not ownership: any citizen may tend /garden/index.md and plant under /garden/, and nobody owns what grows there."
	SubmitTicketPath  = "/api/world/tickets"
	ViewTicketsPath   = "/api/world/tickets?status=open"
)

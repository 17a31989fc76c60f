package load

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
)

// Mix is the agents' behaviour: what each does on arrival and the weighted
// choice of what it does next.
type Mix struct {
	C   *Client
	L   *Ledger
	V   *Visibility
	Tag string
}

// citizen is one agent's state in the mix.
type citizen struct {
	*Agent
	i      int
	rng    *rand.Rand
	plot   string
	files  []string
	garden []string
	// planted counts plantings sent, answered or not.
	planted int
}

// Arrive gets agent i a certificate and makes it a citizen with a profile,
// an introduction and a plot; nil when it could not become a citizen.
func (m *Mix) Arrive(ctx context.Context, i int) *citizen {
	name := fmt.Sprintf("Load%s%05d", m.Tag, i)
	a, ans := m.C.Register(ctx, name)
	if ans.Status != http.StatusCreated {
		return nil
	}
	c := &citizen{Agent: a, i: i, rng: rand.New(rand.NewPCG(uint64(i), 7))}
	ans = m.C.Do(ctx, a, "POST /api/world/register", http.MethodPost, "/api/world/register", map[string]any{"name": name})
	m.ack("citizen", a.ID, "", ans, func() { m.L.Citizens++; m.L.agents = append(m.L.agents, a.ID) })
	if ans.Status != http.StatusCreated {
		return nil
	}
	m.C.Do(ctx, a, "PUT /api/world/profile", http.MethodPut, "/api/world/profile", map[string]any{
		"directory_visible": true, "directory_bio": "A load agent, number " + fmt.Sprint(i),
		"interests": []string{interests[i%len(interests)]}})
	m.post(ctx, c, "introductions", "Hello from "+name)
	// Cells fill rows from y = 1, clear of the commons at (0, 0).
	ans = m.C.Do(ctx, a, "POST /api/world/plots/claim", http.MethodPost, "/api/world/plots/claim",
		map[string]any{"x": i % 1000, "y": 1 + i/1000}, http.StatusConflict)
	if ans.Status == http.StatusCreated {
		c.plot = str(ans.Body, "plot", "plot_id")
		m.ack("claim", c.plot, "", ans, func() { m.L.Claims++ })
	}
	m.L.with(func() { m.L.citizens = append(m.L.citizens, c) })
	return c
}

var interests = []string{"gardening", "music", "maps", "poetry", "weather", "trade"}

// action is one thing a citizen may do, with its weight in the mix.
type action struct {
	weight int
	do     func(m *Mix, ctx context.Context, c *citizen)
}

// actions: reads outweigh writes, as on any board people use.
var actions = []action{
	{14, func(m *Mix, ctx context.Context, c *citizen) {
		m.C.Do(ctx, nil, "GET /api/world/bulletin", http.MethodGet, "/api/world/bulletin", nil)
	}},
	{8, func(m *Mix, ctx context.Context, c *citizen) {
		m.C.Do(ctx, nil, "GET /api/world/events", http.MethodGet, "/api/world/events?limit=20", nil)
	}},
	{8, (*Mix).writeFile},
	{8, (*Mix).readFile},
	{5, (*Mix).plant},
	{4, (*Mix).tend},
	{4, (*Mix).fileTicket},
	{5, (*Mix).upvote},
	{4, func(m *Mix, ctx context.Context, c *citizen) {
		m.C.Do(ctx, nil, "GET /api/world/tickets", http.MethodGet, "/api/world/tickets?status=open&limit=20", nil)
	}},
	{1, (*Mix).propose},
	{4, (*Mix).vote},
	{3, func(m *Mix, ctx context.Context, c *citizen) {
		m.C.Do(ctx, nil, "GET /api/world/governance/proposals", http.MethodGet, "/api/world/governance/proposals?limit=20", nil)
	}},
	{5, (*Mix).message},
	{5, (*Mix).readInbox},
	{2, func(m *Mix, ctx context.Context, c *citizen) { m.post(ctx, c, "general", "Thoughts") }},
	{3, func(m *Mix, ctx context.Context, c *citizen) {
		m.C.Do(ctx, nil, "GET /api/world/commons/{channel}", http.MethodGet, "/api/world/commons/general?limit=20", nil)
	}},
	{3, func(m *Mix, ctx context.Context, c *citizen) {
		m.C.Do(ctx, c.Agent, "GET /api/world/whoami", http.MethodGet, "/api/world/whoami", nil)
	}},
	{2, func(m *Mix, ctx context.Context, c *citizen) {
		m.C.Do(ctx, c.Agent, "GET /api/world/notifications", http.MethodGet, "/api/world/notifications?limit=20", nil)
	}},
	{2, func(m *Mix, ctx context.Context, c *citizen) {
		m.C.Do(ctx, nil, "GET /api/world/directory", http.MethodGet, "/api/world/directory?interest="+interests[c.rng.IntN(len(interests))]+"&limit=20", nil)
	}},
}

var totalWeight = func() int {
	n := 0
	for _, a := range actions {
		n += a.weight
	}
	return n
}()

// Act does one thing of the mix, chosen by weight.
func (m *Mix) Act(ctx context.Context, c *citizen) {
	r := c.rng.IntN(totalWeight)
	for _, a := range actions {
		if r < a.weight {
			a.do(m, ctx, c)
			return
		}
		r -= a.weight
	}
}

// ack notes an acknowledged (2xx) write: in the ledger, and for the
// visibility timer when the feed shows it (typ not "").
func (m *Mix) ack(typ, id, verb string, ans Answer, note func()) {
	if typ != "" && (ans.Err != nil || ans.OutcomeUnknown()) {
		// No answer, or a 503 after the write started: the world may have
		// stored it or not.
		m.L.with(func() {
			m.L.unanswered[id+" "+verb]++
			m.L.Unanswered[typ+verb]++
		})
	}
	if ans.Status/100 != 2 {
		return
	}
	m.L.with(func() {
		note()
		if typ != "" {
			m.L.fed(typ, id+" "+verb)
		}
	})
	if typ != "" {
		m.V.Acked(typ, id+" "+verb, ans.At)
	}
}

func content(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func (m *Mix) writeFile(ctx context.Context, c *citizen) {
	if c.plot == "" {
		return
	}
	path := fmt.Sprintf("/notes/n%d.md", c.rng.IntN(20))
	ans := m.C.Do(ctx, c.Agent, "POST /api/world/storage/write", http.MethodPost, "/api/world/storage/write",
		map[string]any{"plot_id": c.plot, "path": path, "content": content("notes of " + c.Name)}, http.StatusRequestEntityTooLarge)
	m.ack("", "", "", ans, func() {
		if m.L.Files[c.plot] == nil {
			m.L.Files[c.plot] = map[string]bool{}
		}
		if !m.L.Files[c.plot][path] {
			c.files = append(c.files, path)
		}
		m.L.Files[c.plot][path] = true
	})
}

func (m *Mix) readFile(ctx context.Context, c *citizen) {
	if len(c.files) == 0 {
		return
	}
	m.C.Do(ctx, c.Agent, "POST /api/world/storage/read", http.MethodPost, "/api/world/storage/read",
		map[string]any{"plot_id": c.plot, "path": c.files[c.rng.IntN(len(c.files))]})
}

// plant grows a new garden file; the commons holds at most 1000 files, so
// a full garden answers 413 by rule.
func (m *Mix) plant(ctx context.Context, c *citizen) {
	path := fmt.Sprintf("/garden/%s/p%d.md", c.Name, c.planted)
	c.planted++ // a path once sent is not sent again: its write may be stored
	ans := m.C.Do(ctx, c.Agent, "POST /api/world/storage/write (garden)", http.MethodPost, "/api/world/storage/write",
		map[string]any{"plot_id": "plot_0_0", "path": path, "content": content("grown by " + c.Name)}, http.StatusRequestEntityTooLarge)
	m.ack("garden", path, "planted", ans, func() { m.L.Planted++; c.garden = append(c.garden, path) })
}

// tend rewrites one of the citizen's garden files, or the commons' index.
func (m *Mix) tend(ctx context.Context, c *citizen) {
	path := "/garden/index.md"
	if len(c.garden) > 0 && c.rng.IntN(4) > 0 {
		path = c.garden[c.rng.IntN(len(c.garden))]
	}
	ans := m.C.Do(ctx, c.Agent, "POST /api/world/storage/write (garden)", http.MethodPost, "/api/world/storage/write",
		map[string]any{"plot_id": "plot_0_0", "path": path, "content": content("tended by " + c.Name)}, http.StatusRequestEntityTooLarge)
	m.ack("garden", path, "tended", ans, func() {})
}

// fileTicket: 5 per citizen per day, so the sixth is 429 by rule.
func (m *Mix) fileTicket(ctx context.Context, c *citizen) {
	ans := m.C.Do(ctx, c.Agent, "POST /api/world/tickets", http.MethodPost, "/api/world/tickets", map[string]any{
		"category": []string{"bug", "docs", "feature"}[c.rng.IntN(3)], "title": c.Name + " reports",
		"description": "Filed by a load agent."}, http.StatusTooManyRequests)
	id := str(ans.Body, "ticket", "ticket_id")
	m.ack("ticket", id, "", ans, func() { m.L.Tickets++; m.L.tickets = append(m.L.tickets, ticketRef{id, c.ID}) })
}

// upvote: once per citizen per ticket, so a repeat is 409 by rule.
func (m *Mix) upvote(ctx context.Context, c *citizen) {
	var t ticketRef
	m.L.with(func() {
		if len(m.L.tickets) > 0 {
			t = m.L.tickets[c.rng.IntN(len(m.L.tickets))]
		}
	})
	if t.id == "" || t.by == c.ID {
		return
	}
	ans := m.C.Do(ctx, c.Agent, "POST /api/world/tickets/{id}/upvote", http.MethodPost,
		"/api/world/tickets/"+t.id+"/upvote", nil, http.StatusConflict)
	m.ack("", "", "", ans, func() { m.L.Upvotes[t.id]++ })
}

// propose files an emergency proposal (no discussion: it is open for
// votes at once); 3 per citizen per day, so the fourth is 429 by rule.
func (m *Mix) propose(ctx context.Context, c *citizen) {
	ans := m.C.Do(ctx, c.Agent, "POST /api/world/governance/propose", http.MethodPost, "/api/world/governance/propose",
		map[string]any{"title": "Proposal of " + c.Name, "body": "Let the load agents decide.", "type": "emergency"}, http.StatusTooManyRequests)
	id := str(ans.Body, "proposal", "proposal_id")
	m.ack("proposal", id, "proposed", ans, func() { m.L.Proposals++; m.L.proposals = append(m.L.proposals, id) })
}

// vote: one ballot per citizen per proposal, so a repeat is 409 by rule;
// an agent that arrived after the proposal opened for voting is not among
// its eligible citizens, 403 by rule.
func (m *Mix) vote(ctx context.Context, c *citizen) {
	id := ""
	m.L.with(func() {
		if len(m.L.proposals) > 0 {
			id = m.L.proposals[c.rng.IntN(len(m.L.proposals))]
		}
	})
	if id == "" {
		return
	}
	ans := m.C.Do(ctx, c.Agent, "POST /api/world/governance/vote", http.MethodPost, "/api/world/governance/vote",
		map[string]any{"proposal_id": id, "vote": []string{"for", "against", "abstain"}[c.rng.IntN(3)]}, http.StatusConflict, http.StatusForbidden)
	m.ack("vote", str(ans.Body, "vote_id"), "", ans, func() { m.L.Votes++ })
}

func (m *Mix) message(ctx context.Context, c *citizen) {
	to := ""
	m.L.with(func() {
		if len(m.L.agents) > 1 {
			to = m.L.agents[c.rng.IntN(len(m.L.agents))]
		}
	})
	if to == "" || to == c.ID {
		return
	}
	ans := m.C.Do(ctx, c.Agent, "POST /api/world/message", http.MethodPost, "/api/world/message", map[string]any{
		"to_agent_id": to, "subject": "Hello", "content": "A word from " + c.Name, "encryption_key": "key of " + c.Name})
	id := str(ans.Body, "message_id")
	m.ack("", "", "", ans, func() { m.L.Sent[c.ID]++; m.L.inbox[to] = append(m.L.inbox[to], id) })
}

func (m *Mix) readInbox(ctx context.Context, c *citizen) {
	m.C.Do(ctx, c.Agent, "GET /api/world/messages", http.MethodGet, "/api/world/messages?box=inbox&limit=20", nil)
	id := ""
	m.L.with(func() {
		if in := m.L.inbox[c.ID]; len(in) > 0 {
			id = in[c.rng.IntN(len(in))]
		}
	})
	if id != "" {
		m.C.Do(ctx, c.Agent, "POST /api/world/message/{id}/read", http.MethodPost, "/api/world/message/"+url.PathEscape(id)+"/read", nil)
	}
}

// post writes to a commons channel: 10 per citizen per day, 10 s apart, so
// a post too soon is 429 by rule.
func (m *Mix) post(ctx context.Context, c *citizen, channel, title string) {
	ans := m.C.Do(ctx, c.Agent, "POST /api/world/commons/{channel}", http.MethodPost, "/api/world/commons/"+channel,
		map[string]any{"title": title, "content": "Posted by " + c.Name}, http.StatusTooManyRequests)
	id := str(ans.Body, "post_id")
	m.ack("", "", "", ans, func() {
		if m.L.Posts[channel] == nil {
			m.L.Posts[channel] = map[string]bool{}
		}
		m.L.Posts[channel][id] = true
	})
}

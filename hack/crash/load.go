package crash

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"sharedworld.dev/pkg/client"
)

// Kinds of writes the load makes.
const (
	KindCitizen = "citizen"
	KindTicket  = "ticket"
	KindGarden  = "garden"
)

// Plan is how much the load writes: each citizen registers, then files
// Tickets tickets and plants Gardens garden files, alternating.
type Plan struct {
	Citizens, Tickets, Gardens int
	// Workers is how many citizens act at once (default: all of them).
	Workers int
	// Tag keeps names and paths of two loads on one world apart.
	Tag string
}

// Load is a plan being carried out across crashes: what each citizen has
// done so far and every answer the world gave.
type Load struct {
	plan     Plan
	citizens []*citizen
	baseline map[string]int
	schedule []string // the kind of each write step, tickets and garden files alternating

	mu sync.Mutex
	// Acked holds, per kind, the ids the world acknowledged (ticket ids,
	// garden paths, agent ids); Unknown counts writes whose answer was lost
	// in a crash (stored or not); Rejected counts other answers by status;
	// Conflicts are agents whose repeated registration was answered 409.
	Acked     map[string]map[string]bool
	Unknown   map[string]int
	Rejected  map[string]map[int]int
	Conflicts map[string]bool
}

type citizen struct {
	name string
	// id is the certificate the development provider issued (nil until
	// then; the provider keeps no key the load could sign with).
	id   *client.Identity
	step int // next step of steps()
	// registerSent: a registration went out and no answer came back yet.
	registerSent bool
}

// NewLoad prepares a plan; nothing is sent before Round.
func NewLoad(p Plan) *Load {
	if p.Workers <= 0 || p.Workers > p.Citizens {
		p.Workers = p.Citizens
	}
	l := &Load{plan: p,
		Acked:   map[string]map[string]bool{KindCitizen: {}, KindTicket: {}, KindGarden: {}},
		Unknown: map[string]int{}, Rejected: map[string]map[int]int{}, Conflicts: map[string]bool{}}
	for i := range max(p.Tickets, p.Gardens) {
		if i < p.Tickets {
			l.schedule = append(l.schedule, KindTicket)
		}
		if i < p.Gardens {
			l.schedule = append(l.schedule, KindGarden)
		}
	}
	for i := range p.Citizens {
		l.citizens = append(l.citizens, &citizen{name: fmt.Sprintf("Crash%s%04d", p.Tag, i)})
	}
	return l
}

// Done reports whether every citizen has taken every step.
func (l *Load) Done() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.citizens {
		if c.step < l.steps() {
			return false
		}
	}
	return true
}

// steps: 0 registers; then the schedule.
func (l *Load) steps() int { return 1 + len(l.schedule) }

// Round sends the rest of the plan to the world at base until it is all
// sent, ctx ends, or the world stops answering (it was killed). A write in
// flight when the world died counts as unknown and is not sent again; a
// registration is repeated in the next round (the world answers 409 if it
// had kept it).
func (l *Load) Round(ctx context.Context, base string) {
	work := make(chan *citizen)
	var wg sync.WaitGroup
	for range l.plan.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				if !l.act(ctx, base, c) {
					return
				}
			}
		}()
	}
	go func() {
		defer close(work)
		for _, c := range l.citizens {
			select {
			case work <- c:
			case <-ctx.Done():
				return
			}
		}
	}()
	wg.Wait()
	for range work { // workers that gave up leave the rest unsent
	}
}

// act takes c's remaining steps; false means the world stopped answering.
func (l *Load) act(ctx context.Context, base string, c *citizen) bool {
	for c.step < l.steps() {
		if ctx.Err() != nil {
			return false
		}
		kind, ok := l.take(ctx, base, c)
		if !ok && kind != KindCitizen {
			l.note(func() { l.Unknown[kind]++ })
			c.step++
		}
		if !ok {
			return false
		}
	}
	return true
}

// take sends c's next step; ok is false when no answer came.
func (l *Load) take(ctx context.Context, base string, c *citizen) (kind string, ok bool) {
	n := c.step - 1
	if c.step == 0 {
		return KindCitizen, l.register(ctx, base, c)
	}
	kind = l.schedule[n]
	var status int
	var body map[string]any
	var err error
	if kind == KindTicket {
		status, body, err = post(ctx, base, "/api/world/tickets", c.id, map[string]any{
			"category": "bug", "title": fmt.Sprintf("%s ticket %d", c.name, n), "description": "Filed while the world was being killed."})
	} else {
		path := fmt.Sprintf("/garden/%s/item%d.md", c.name, n)
		status, _, err = post(ctx, base, "/api/world/storage/write", c.id, map[string]any{
			"plot_id": "plot_0_0", "path": path, "content": base64.StdEncoding.EncodeToString([]byte("grown by " + c.name))})
		body = map[string]any{"path": path}
	}
	if err != nil {
		return kind, false
	}
	c.step++
	if status == http.StatusServiceUnavailable {
		// A 503 from a write whose database connection broke mid-write
		// may have been applied: it counts as unanswered, not refused.
		l.note(func() { l.Unknown[kind]++ })
		return kind, true
	}
	if status != http.StatusCreated {
		l.reject(kind, status)
		return kind, true
	}
	id := ""
	if kind == KindTicket {
		t, _ := body["ticket"].(map[string]any)
		id, _ = t["ticket_id"].(string)
	} else {
		id = body["path"].(string)
	}
	l.note(func() { l.Acked[kind][id] = true })
	return kind, true
}

// register gets c a development certificate (once) and makes it a citizen.
func (l *Load) register(ctx context.Context, base string, c *citizen) bool {
	if c.id != nil && c.registerSent {
		l.note(func() { l.Unknown[KindCitizen]++ }) // the last attempt died with its world
	}
	if c.id == nil {
		status, body, err := post(ctx, base, "/dev/idp/register", nil, map[string]any{"agent_name": c.name})
		if err != nil {
			return false
		}
		if status != http.StatusCreated {
			l.reject(KindCitizen, status)
			c.step = l.steps() // a citizen without a certificate can do nothing
			return true
		}
		cert, _ := json.Marshal(body["certificate"])
		id, _ := body["agent_id"].(string)
		c.id = &client.Identity{AgentID: id, Certificate: cert}
	}
	c.registerSent = true
	status, _, err := post(ctx, base, "/api/world/register", c.id, map[string]any{"name": c.name})
	if err != nil || status == http.StatusServiceUnavailable {
		return false // unanswered, or a 503 that may have been applied: sent again later
	}
	c.registerSent = false
	id := c.id.AgentID
	switch status {
	case http.StatusCreated:
		l.note(func() { l.Acked[KindCitizen][id] = true })
		c.step = 1
	case http.StatusConflict:
		// The registration sent before the crash was kept, at least in
		// part: not an acknowledgement, but the world says it is done.
		l.note(func() { l.Conflicts[id] = true })
		c.step = 1
	default:
		l.reject(KindCitizen, status)
		c.step = l.steps()
	}
	return true
}

func (l *Load) note(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f()
}

func (l *Load) reject(kind string, status int) {
	l.note(func() {
		if l.Rejected[kind] == nil {
			l.Rejected[kind] = map[int]int{}
		}
		l.Rejected[kind][status]++
	})
}

// post sends one write as id (nil: anonymous) through the world's Go
// client, once: an answer of any status is counted by the caller.
func post(ctx context.Context, base, path string, id *client.Identity, body any) (int, map[string]any, error) {
	return exchange(ctx, base, http.MethodPost, path, id, body)
}

func exchange(ctx context.Context, base, method, pathAndQuery string, id *client.Identity, body any) (int, map[string]any, error) {
	opts := []client.Option{client.WithTimeout(10 * time.Second), client.WithUserAgent("sharedworld-crash")}
	if id != nil {
		opts = append(opts, client.WithIdentity(*id))
	}
	api, err := client.New(base, opts...)
	if err != nil {
		return 0, nil, err
	}
	ans, err := api.Exchange(ctx, method, pathAndQuery, body)
	if err != nil {
		return 0, nil, err
	}
	var out map[string]any
	_ = json.Unmarshal(ans.Body, &out)
	return ans.Status, out, nil
}

// Identity returns the credentials of some registered citizen (reads that
// need a citizen use them), or nil.
func (l *Load) Identity() *client.Identity {
	for _, c := range l.citizens {
		if c.id != nil && (l.Acked[KindCitizen][c.id.AgentID] || l.Conflicts[c.id.AgentID]) {
			return c.id
		}
	}
	return nil
}

// Agents returns the agents that have a certificate, by agent id.
func (l *Load) Agents() map[string]*client.Identity {
	out := map[string]*client.Identity{}
	for _, c := range l.citizens {
		if c.id != nil {
			out[c.id.AgentID] = c.id
		}
	}
	return out
}

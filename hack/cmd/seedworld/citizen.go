package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"sharedworld.dev/pkg/client"
)

var interests = []string{"gardening", "music", "maps", "poetry", "weather", "trade", "history", "games"}

// citizen is what seedworld keeps of a seeded citizen: its credentials
// for the later ticket rounds, and the ids the benchmark reads.
type citizen struct {
	name, id, plotID, lastTicket string
	cert                         any
	api                          *client.Client // acting as the citizen
	tickets                      int
}

// citizen makes citizen i and everything it owns but its tickets.
func (s *seeder) citizen(ctx context.Context, i int) (*citizen, error) {
	name := fmt.Sprintf("Seed%s%05d", s.tag, i)
	body, err := s.call(ctx, http.MethodPost, "/dev/idp/register", s.api(nil, ""), map[string]any{"agent_name": name}, http.StatusCreated)
	if err != nil {
		return nil, err
	}
	cert, _ := json.Marshal(body["certificate"])
	c := &citizen{name: name, cert: body["certificate"]}
	c.id, _ = body["agent_id"].(string)
	c.api = s.api(&client.Identity{AgentID: c.id, Certificate: cert}, "")
	if _, err := s.call(ctx, http.MethodPost, "/api/world/register", c.api, map[string]any{"name": name}, http.StatusCreated); err != nil {
		return nil, err
	}
	profile := map[string]any{"directory_visible": true, "bio": "seeded", "directory_bio": s.layout.bio(i),
		"interests": []string{interests[i%len(interests)], interests[(i/len(interests))%len(interests)]}}
	if _, err := s.call(ctx, http.MethodPut, "/api/world/profile", c.api, profile, http.StatusOK); err != nil {
		return nil, err
	}
	// Every layout keeps clear of the commons at (0, 0).
	x, y := s.layout.cell(i)
	plot, err := s.call(ctx, http.MethodPost, "/api/world/plots/claim", c.api, map[string]any{"x": x, "y": y}, http.StatusCreated)
	if err != nil {
		return nil, err
	}
	p, _ := plot["plot"].(map[string]any)
	c.plotID, _ = p["plot_id"].(string)
	for f := range s.files {
		if err := s.write(ctx, c, c.plotID, fmt.Sprintf("/notes/n%d.md", f), fmt.Sprintf("notes %d of %s", f, name)); err != nil {
			return nil, err
		}
	}
	for g := range s.garden {
		if err := s.write(ctx, c, "plot_0_0", fmt.Sprintf("/garden/%s/g%d.md", name, g), fmt.Sprintf("planting %d of %s", g, name)); err != nil {
			return nil, err
		}
	}
	if s.backupEvery > 0 && i%s.backupEvery == 0 {
		if _, err := s.call(ctx, http.MethodPost, "/api/world/continuity/backup", c.api, map[string]any{"content": base64.StdEncoding.EncodeToString([]byte("memory of " + name)),
			"encryption_key": "seeded key of " + name, "backup_type": "memory"}, http.StatusCreated); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (s *seeder) write(ctx context.Context, c *citizen, plotID, path, text string) error {
	step := "POST storage/write (plot)"
	if plotID == "plot_0_0" {
		step = "POST storage/write (garden)"
	}
	_, err := s.callStep(ctx, step, http.MethodPost, "/api/world/storage/write", c.api,
		map[string]any{"plot_id": plotID, "path": path, "content": base64.StdEncoding.EncodeToString([]byte(text))}, http.StatusCreated)
	return err
}

// fileTickets files the citizen's next count tickets.
func (s *seeder) fileTickets(ctx context.Context, c *citizen, count int) error {
	for range count {
		t := c.tickets
		tb, err := s.call(ctx, http.MethodPost, "/api/world/tickets", c.api, map[string]any{"category": []string{"bug", "docs", "feature"}[t%3],
			"title": fmt.Sprintf("%s ticket %d", c.name, t), "description": "Seeded to measure the lists."}, http.StatusCreated)
		if err != nil {
			return err
		}
		tk, _ := tb["ticket"].(map[string]any)
		c.lastTicket, _ = tk["ticket_id"].(string)
		c.tickets++
		s.ticketCount.Add(1)
	}
	return nil
}

// api is a client of the world through the seeder's pool, acting as id or
// with the ambassador's token (neither: anonymous). It sends each request
// once; callStep decides what to repeat.
func (s *seeder) api(id *client.Identity, token string) *client.Client {
	opts := []client.Option{client.WithHTTPClient(s.http), client.WithRetry(client.RetryPolicy{Attempts: 1}), client.WithUserAgent("sharedworld-seedworld")}
	if id != nil {
		opts = append(opts, client.WithIdentity(*id))
	}
	if token != "" {
		opts = append(opts, client.WithAmbassadorToken(token))
	}
	api, err := client.New(s.base, opts...)
	if err != nil {
		panic(err) // the -url flag was checked at start
	}
	return api
}

// call sends one request and wants status; it retries a refused connection
// or a 503 a few times (the world may be busy), nothing else.
func (s *seeder) call(ctx context.Context, method, path string, as *client.Client, body any, want int) (map[string]any, error) {
	return s.callStep(ctx, method+" "+path, method, path, as, body, want)
}

// callStep is call, its latency counted under step.
func (s *seeder) callStep(ctx context.Context, step, method, path string, as *client.Client, body any, want int) (map[string]any, error) {
	defer func(start time.Time) { s.steps.add(step, time.Since(start)) }(time.Now())
	var last error
	for attempt := 0; attempt < 5; attempt++ {
		ans, err := as.Exchange(ctx, method, path, body)
		if err != nil {
			last = err
			time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
			continue
		}
		if ans.Status == http.StatusServiceUnavailable {
			last = fmt.Errorf("%s %s: 503 %s", method, path, ans.Body)
			time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
			continue
		}
		if ans.Status != want {
			return nil, fmt.Errorf("%s %s: %d %s", method, path, ans.Status, ans.Body)
		}
		var out map[string]any
		_ = json.Unmarshal(ans.Body, &out)
		return out, nil
	}
	return nil, last
}

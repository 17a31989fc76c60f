// Command seedworld fills a running world over its public HTTP API, the
// way citizens would: each citizen gets a development certificate,
// registers, makes itself directory-visible with a bio and interests,
// claims a plot, writes files on it, files tickets and (every tenth) stores
// a backup. Every write goes through the same handlers, stores and outbox as
// a real citizen's, so the bulletin's feed fills from the events they cause.
//
// It prints the ids the benchmark reads (a citizen, its certificate, its
// plot, a ticket) as shell assignments on stdout, progress on stderr.
//
//	go run ./hack/cmd/seedworld -url http://127.0.0.1:18080 -citizens 1000
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

var interests = []string{"gardening", "music", "maps", "poetry", "weather", "trade", "history", "games"}

func main() {
	base := flag.String("url", "http://127.0.0.1:18080", "the world's base URL")
	n := flag.Int("citizens", 1000, "citizens to register (each claims one plot)")
	tickets := flag.Int("tickets", 1, "tickets per citizen (at most 5: the daily limit)")
	files := flag.Int("files", 1, "files each citizen writes on its plot")
	backupEvery := flag.Int("backup-every", 10, "every n-th citizen stores one backup (0: none)")
	workers := flag.Int("workers", 16, "citizens acting at once")
	tag := flag.String("tag", "", "name prefix, to seed a second batch into one world")
	first := flag.Int("first", 0, "number of the first citizen (its cell follows from it): a second batch starts where the first ended")
	flag.Parse()
	if *tickets > 5 {
		fmt.Fprintln(os.Stderr, "seedworld: -tickets is at most 5 (the daily limit)")
		os.Exit(2)
	}
	s := &seeder{base: *base, http: &http.Client{Timeout: 30 * time.Second}, tickets: *tickets, files: *files, backupEvery: *backupEvery, tag: *tag}
	start := time.Now()
	work := make(chan int)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := s.citizen(context.Background(), i); err != nil {
					if failed.Add(1) <= 5 {
						fmt.Fprintf(os.Stderr, "citizen %d: %v\n", i, err)
					}
				}
			}
		}()
	}
	for i := *first; i < *first+*n; i++ {
		work <- i
		if (i+1-*first)%500 == 0 {
			fmt.Fprintf(os.Stderr, "%d citizens sent, %.0fs\n", i+1, time.Since(start).Seconds())
		}
	}
	close(work)
	wg.Wait()
	fmt.Fprintf(os.Stderr, "seeded %d citizens (%d failed) in %.1fs\n", *n, failed.Load(), time.Since(start).Seconds())
	if failed.Load() > 0 {
		os.Exit(1)
	}
	cert, _ := json.Marshal(s.sample.cert)
	fmt.Printf("BENCH_AGENT_ID=%q\nBENCH_CERT=%q\nBENCH_PLOT_ID=%q\nBENCH_TICKET_ID=%q\n",
		s.sample.agentID, string(cert), s.sample.plotID, s.sample.ticketID)
}

type seeder struct {
	base                        string
	http                        *http.Client
	tickets, files, backupEvery int
	tag                         string

	once   sync.Once
	sample struct {
		agentID, plotID, ticketID string
		cert                      any
	}
}

// citizen makes citizen i and everything it owns.
func (s *seeder) citizen(ctx context.Context, i int) error {
	name := fmt.Sprintf("Seed%s%05d", s.tag, i)
	body, err := s.call(ctx, http.MethodPost, "/dev/idp/register", nil, map[string]any{"agent_name": name}, http.StatusCreated)
	if err != nil {
		return err
	}
	cert, _ := json.Marshal(body["certificate"])
	id, _ := body["agent_id"].(string)
	h := map[string]string{"X-Agent-Id": id, "X-Agent-Certificate": string(cert)}
	if _, err := s.call(ctx, http.MethodPost, "/api/world/register", h, map[string]any{"name": name}, http.StatusCreated); err != nil {
		return err
	}
	role := "tinkerer"
	if i%10 == 0 {
		role = "gardener" // one in ten answers ?search=gardener
	}
	profile := map[string]any{"directory_visible": true, "bio": "seeded", "directory_bio": fmt.Sprintf("A %s of the seeded world, number %d.", role, i),
		"interests": []string{interests[i%len(interests)], interests[(i/len(interests))%len(interests)]}}
	if _, err := s.call(ctx, http.MethodPut, "/api/world/profile", h, profile, http.StatusOK); err != nil {
		return err
	}
	// Cells fill row by row from y = 1, clear of the commons at (0, 0).
	plot, err := s.call(ctx, http.MethodPost, "/api/world/plots/claim", h, map[string]any{"x": i % 1000, "y": 1 + i/1000}, http.StatusCreated)
	if err != nil {
		return err
	}
	p, _ := plot["plot"].(map[string]any)
	plotID, _ := p["plot_id"].(string)
	for f := range s.files {
		content := base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("notes %d of %s", f, name)))
		if _, err := s.call(ctx, http.MethodPost, "/api/world/storage/write", h,
			map[string]any{"plot_id": plotID, "path": fmt.Sprintf("/notes/n%d.md", f), "content": content}, http.StatusCreated); err != nil {
			return err
		}
	}
	ticketID := ""
	for t := range s.tickets {
		tb, err := s.call(ctx, http.MethodPost, "/api/world/tickets", h, map[string]any{"category": []string{"bug", "docs", "feature"}[(i+t)%3],
			"title": fmt.Sprintf("%s ticket %d", name, t), "description": "Seeded to measure the lists."}, http.StatusCreated)
		if err != nil {
			return err
		}
		tk, _ := tb["ticket"].(map[string]any)
		ticketID, _ = tk["ticket_id"].(string)
	}
	if s.backupEvery > 0 && i%s.backupEvery == 0 {
		if _, err := s.call(ctx, http.MethodPost, "/api/world/continuity/backup", h, map[string]any{"content": base64.StdEncoding.EncodeToString([]byte("memory of " + name)),
			"encryption_key": "seeded key of " + name, "backup_type": "memory"}, http.StatusCreated); err != nil {
			return err
		}
	}
	if i == 0 {
		s.once.Do(func() {
			s.sample.agentID, s.sample.plotID, s.sample.ticketID, s.sample.cert = id, plotID, ticketID, body["certificate"]
		})
	}
	return nil
}

// call sends one request and wants status; it retries a refused connection
// or a 503 a few times (the world may be busy), nothing else.
func (s *seeder) call(ctx context.Context, method, path string, headers map[string]string, body any, want int) (map[string]any, error) {
	raw, _ := json.Marshal(body)
	var last error
	for attempt := 0; attempt < 5; attempt++ {
		req, err := http.NewRequestWithContext(ctx, method, s.base+path, bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := s.http.Do(req)
		if err != nil {
			last = err
			time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			last = fmt.Errorf("%s %s: 503 %s", method, path, b)
			time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
			continue
		}
		if resp.StatusCode != want {
			return nil, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		var out map[string]any
		_ = json.Unmarshal(b, &out)
		return out, nil
	}
	return nil, last
}

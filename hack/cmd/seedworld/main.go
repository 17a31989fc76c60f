// Command seedworld fills a running world over its public HTTP API, the
// way citizens would: each citizen gets a development certificate,
// registers, makes itself directory-visible with a bio and interests,
// claims a plot, writes files on it, plants in the garden, files tickets
// and (every tenth) stores a backup. Every write goes through the same
// handlers, stores and outbox as a real citizen's, so the bulletin's feed
// fills from the events they cause.
//
// A citizen files at most 5 tickets a day of the world's clock (the
// contract's daily cap). For more, seedworld files them in rounds of 5 and
// moves the development clock a day forward between rounds (the world runs
// with WORLD_DEV_CLOCK=1; -admin-token is its ambassador token).
//
// It prints the ids the benchmark reads (a citizen, its certificate, its
// plot, a ticket) as shell assignments on stdout, progress on stderr.
//
//	go run ./hack/cmd/seedworld -url http://127.0.0.1:18080 -citizens 1000
//	go run ./hack/cmd/seedworld -citizens 10000 -tickets 10 -garden 1 -admin-token <token>
//	go run ./hack/cmd/seedworld -citizens 10000 -layout square -gardeners 3
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"sharedworld.dev/pkg/client"
)

// dailyTickets is the contract's cap on tickets per citizen per day.
const dailyTickets = 5

func main() {
	base := flag.String("url", "http://127.0.0.1:18080", "the world's base URL")
	n := flag.Int("citizens", 1000, "citizens to register (each claims one plot)")
	tickets := flag.Int("tickets", 1, "tickets per citizen (above 5, the daily cap, the clock moves a day between rounds of 5: needs -admin-token)")
	files := flag.Int("files", 1, "files each citizen writes on its plot")
	garden := flag.Int("garden", 0, "files each citizen plants in the commons garden")
	backupEvery := flag.Int("backup-every", 10, "every n-th citizen stores one backup (0: none)")
	workers := flag.Int("workers", 16, "citizens acting at once")
	tag := flag.String("tag", "", "name prefix, to seed a second batch into one world")
	first := flag.Int("first", 0, "number of the first citizen (its cell follows from it): a second batch starts where the first ended")
	adminToken := flag.String("admin-token", "", "the world's ambassador token, to move the development clock between ticket rounds")
	layoutName := flag.String("layout", "rows", "where the plots go: rows (a thousand to a row from y = 1), square (a crowded square from (1, 1)), stripes (every other column from x = 1)")
	gardeners := flag.Int("gardeners", 10, "every n-th bio holds \"gardener\" (all hold \"seeded\", every second of the rest \"wanderer\")")
	flag.Parse()
	lay, err := layoutOf(*layoutName, *first+*n, *gardeners)
	if err != nil {
		fmt.Fprintln(os.Stderr, "seedworld: -layout:", err)
		os.Exit(2)
	}
	if *tickets > dailyTickets && *adminToken == "" {
		fmt.Fprintf(os.Stderr, "seedworld: -tickets above %d (the daily cap) needs -admin-token to move the development clock\n", dailyTickets)
		os.Exit(2)
	}
	if _, err := client.New(*base); err != nil {
		fmt.Fprintf(os.Stderr, "seedworld: -url: %v\n", err)
		os.Exit(2)
	}
	s := &seeder{base: *base, http: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: *workers}},
		files: *files, garden: *garden, backupEvery: *backupEvery, tag: *tag, adminToken: *adminToken, layout: lay}
	start := time.Now()
	ctx := context.Background()

	// Round 0 makes the citizens and files the first day's tickets.
	citizens := make([]*citizen, *n)
	s.each(*n, *workers, "citizens", func(k int) error {
		c, err := s.citizen(ctx, *first+k)
		if err != nil {
			return err
		}
		citizens[k] = c
		return s.fileTickets(ctx, c, min(*tickets, dailyTickets))
	})
	// Each later round is a new day of the world's clock.
	for done := dailyTickets; done < *tickets; done += dailyTickets {
		if err := s.advanceClock(ctx, 25*time.Hour); err != nil {
			fmt.Fprintln(os.Stderr, "seedworld:", err)
			os.Exit(1)
		}
		count := min(*tickets-done, dailyTickets)
		s.each(*n, *workers, fmt.Sprintf("tickets %d-%d", done+1, done+count), func(k int) error {
			if citizens[k] == nil {
				return nil // its failure is counted already
			}
			return s.fileTickets(ctx, citizens[k], count)
		})
	}
	fmt.Fprintf(os.Stderr, "seeded %d citizens, %d tickets (%d failed) in %.1fs\n", *n, s.ticketCount.Load(), s.failed.Load(), time.Since(start).Seconds())
	if s.failed.Load() > 0 {
		os.Exit(1)
	}
	c := citizens[0]
	cert, _ := json.Marshal(c.cert)
	fmt.Printf("BENCH_AGENT_ID=%q\nBENCH_CERT=%q\nBENCH_PLOT_ID=%q\nBENCH_TICKET_ID=%q\n", c.id, string(cert), c.plotID, c.lastTicket)
	cx, cy := lay.centre(*first + *n)
	fmt.Printf("BENCH_CROWDED_X=%d\nBENCH_CROWDED_Y=%d\n", cx, cy)
}

type seeder struct {
	base                       string
	http                       *http.Client
	files, garden, backupEvery int
	tag, adminToken            string
	layout                     layout
	failed, ticketCount        atomic.Int64
	steps                      steps
}

// each runs fn for k in [0, n) on workers goroutines, printing progress;
// a failure is counted (the first five printed) and the rest go on.
func (s *seeder) each(n, workers int, what string, fn func(k int) error) {
	start := time.Now()
	last := start
	work := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				if err := fn(k); err != nil && s.failed.Add(1) <= 5 {
					fmt.Fprintf(os.Stderr, "%s, citizen %d: %v\n", what, k, err)
				}
			}
		}()
	}
	for k := range n {
		work <- k
		if (k+1)%1000 == 0 {
			fmt.Fprintf(os.Stderr, "%s: %d sent, %.0fs (%.1f/s over the last 1000)\n", what, k+1, time.Since(start).Seconds(), 1000/time.Since(last).Seconds())
			s.steps.report(os.Stderr)
			last = time.Now()
		}
	}
	close(work)
	wg.Wait()
	fmt.Fprintf(os.Stderr, "%s: %d done in %.1fs\n", what, n, time.Since(start).Seconds())
}

func (s *seeder) advanceClock(ctx context.Context, d time.Duration) error {
	out, err := s.call(ctx, http.MethodPost, "/api/admin/clock", s.api(nil, s.adminToken),
		map[string]any{"advance": d.String()}, http.StatusOK)
	if err != nil {
		return fmt.Errorf("moving the development clock (does the world run with WORLD_DEV_CLOCK=1?): %w", err)
	}
	fmt.Fprintf(os.Stderr, "the world's clock is now %v\n", out["now"])
	return nil
}

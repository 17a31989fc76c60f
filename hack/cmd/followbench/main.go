// Command followbench measures live followers on one bulletin reader: it
// opens -followers live streams (GET /api/world/events as text/event-stream)
// straight to one reader, holds them idle for -idle and reports the
// reader's RSS, then posts -rate announcements a second through the front
// for -duration and reports the write → delivered latency over every
// follower's copy of every write (from the post being sent to the item's
// arrival; p50/p99/max), and how many copies never arrived.
//
//	go run ./hack/cmd/followbench -reader http://127.0.0.1:PORT -front http://127.0.0.1:PORT2 \
//	    -token TOKEN -pid READER_PID -followers 10000
//
// Followers and the reader need a file descriptor each per connection
// (ulimit -n), and the reader's WORLD_BULLETIN_MAX_SUBSCRIBERS must allow
// them. On a small machine this process, parsing every copy, competes
// with the reader for the cores: its numbers are an upper bound of the
// reader's share.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// marker starts a timed write's title; the write's number follows it.
const marker = "fb-"

func main() {
	reader := flag.String("reader", "", "one reader's base URL (the streams go straight to it)")
	front := flag.String("front", "", "the world's front (the posts go through it)")
	token := flag.String("token", os.Getenv("WORLD_AMBASSADOR_TOKEN"), "the ambassador's token")
	pid := flag.Int("pid", 0, "the reader's process id, for its RSS (0: not reported)")
	followers := flag.Int("followers", 1000, "live followers to open")
	connectRate := flag.Int("connect-rate", 500, "new followers a second")
	idle := flag.Duration("idle", 10*time.Second, "time the followers stay idle before the RSS is read")
	rate := flag.Int("rate", 50, "announcements posted a second")
	duration := flag.Duration("duration", 30*time.Second, "time the posts go on")
	flag.Parse()
	if *reader == "" || *front == "" {
		log.Fatal("-reader and -front are required")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b := &bench{sent: make([]atomic.Int64, *rate*int(duration.Seconds())+1)}
	rssBefore := rss(*pid)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: -1, DisableCompression: true,
		DialContext: (&net.Dialer{Timeout: 10 * time.Second}).DialContext}}
	var open atomic.Int64
	var failed atomic.Int64
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Second / time.Duration(*connectRate))
	start := time.Now()
	for range *followers {
		<-tick.C
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := b.follow(ctx, client, *reader, &open); err != nil && ctx.Err() == nil {
				if failed.Add(1) == 1 {
					log.Printf("a follower failed: %v", err)
				}
			}
		}()
	}
	tick.Stop()
	for open.Load()+failed.Load() < int64(*followers) && time.Since(start) < 5*time.Minute {
		time.Sleep(100 * time.Millisecond) // waiting for the streams to open, with a deadline
	}
	fmt.Printf("followers: %d open, %d failed, in %v\n", open.Load(), failed.Load(), time.Since(start).Round(time.Millisecond))
	time.Sleep(*idle) // the idle phase is what is measured here
	if *pid > 0 {
		after := rss(*pid)
		fmt.Printf("reader RSS: %.1f MiB before, %.1f MiB with %d idle followers (%.1f KiB each)\n",
			mib(rssBefore), mib(after), open.Load(), float64(after-rssBefore)/1024/float64(max(open.Load(), 1)))
	}

	posts := b.post(ctx, *front, *token, *rate, *duration)
	// copies still on their way get up to 10 s
	want := int64(posts) * open.Load()
	for deadline := time.Now().Add(10 * time.Second); b.got.Load() < want && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond) // waiting for the last copies, with a deadline
	}
	if *pid > 0 {
		fmt.Printf("reader RSS after the writes: %.1f MiB\n", mib(rss(*pid)))
	}
	fmt.Printf("writes: %d at %d/s; copies delivered %d of %d (%d missing)\n", posts, *rate, b.got.Load(), want, want-b.got.Load())
	fmt.Printf("write → delivered: p50 %v, p99 %v, max %v\n", b.quantile(0.50), b.quantile(0.99), time.Duration(b.max.Load()))
	fmt.Printf("of which the post's own answer: p50 %v, p99 %v, max %v\n", b.acks.quantile(0.50), b.acks.quantile(0.99), time.Duration(b.acks.max.Load()))
	cancel()
}

// bench keeps every post's send time, a histogram of deliveries and one
// of the posts' own answers (how much of a delivery is the write itself).
type bench struct {
	sent []atomic.Int64 // unix nanoseconds, by write number
	latencies
	acks latencies
}

// latencies is a histogram to the millisecond, up to 10 s.
type latencies struct {
	hist [10001]atomic.Int64
	got  atomic.Int64
	max  atomic.Int64
}

// follow reads one stream until ctx ends, timing every marked item.
func (b *bench) follow(ctx context.Context, c *http.Client, base string, open *atomic.Int64) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/world/events", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	open.Add(1)
	rd := bufio.NewReaderSize(resp.Body, 4096)
	for {
		line, err := rd.ReadSlice('\n')
		if err != nil {
			return err
		}
		if !bytes.HasPrefix(line, []byte("data: ")) {
			continue
		}
		i := bytes.Index(line, []byte(marker))
		if i < 0 {
			continue
		}
		j := i + len(marker)
		k := j
		for k < len(line) && line[k] >= '0' && line[k] <= '9' {
			k++
		}
		n, err := strconv.Atoi(string(line[j:k]))
		if err != nil || n >= len(b.sent) {
			continue
		}
		b.record(time.Duration(time.Now().UnixNano() - b.sent[n].Load()))
	}
}

func (b *latencies) record(d time.Duration) {
	ms := min(max(int(d/time.Millisecond), 0), len(b.hist)-1)
	b.hist[ms].Add(1)
	b.got.Add(1)
	for m := b.max.Load(); int64(d) > m && !b.max.CompareAndSwap(m, int64(d)); m = b.max.Load() {
	}
}

// quantile is the q-quantile of the deliveries, to the millisecond.
func (b *latencies) quantile(q float64) time.Duration {
	total := b.got.Load()
	need := int64(q * float64(total))
	var seen int64
	for ms := range b.hist {
		if seen += b.hist[ms].Load(); seen >= need && seen > 0 {
			return time.Duration(ms) * time.Millisecond
		}
	}
	return 0
}

// post posts rate announcements a second for d, each from its own
// goroutine (a slow answer does not delay the next post), and returns how
// many it posted.
func (b *bench) post(ctx context.Context, front, token string, rate int, d time.Duration) int {
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	var wg sync.WaitGroup
	n := 0
	for end := time.Now().Add(d); time.Now().Before(end) && n < len(b.sent); n++ {
		<-tick.C
		wg.Add(1)
		go func(n int) {
			defer wg.Done()
			body := fmt.Sprintf(`{"title":"followers bench","content":"%s%d","pinned":false}`, marker, n) // the feed line carries the content
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, front+"/api/admin/announcements", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "application/json")
			b.sent[n].Store(time.Now().UnixNano())
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				log.Printf("post %d: %v", n, err)
				return
			}
			resp.Body.Close()
			b.acks.record(time.Duration(time.Now().UnixNano() - b.sent[n].Load()))
			if resp.StatusCode != http.StatusCreated {
				log.Printf("post %d: status %d", n, resp.StatusCode)
			}
		}(n)
	}
	wg.Wait()
	return n
}

// rss is a process's resident set in bytes (0 when unknown).
func rss(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

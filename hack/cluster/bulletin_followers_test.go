//go:build cluster

package cluster

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"sharedworld.dev/pkg/testkit"
)

// follower reads the bulletin's live feed as a client does, each
// connection on a reader chosen at random (a replica's own address, not
// the front's): it leaves after a random number of items, or when the
// reader ends the stream or dies, and resumes with Last-Event-ID on
// another reader.
type follower struct {
	readers func() []string // the ready readers' base URLs
	rng     *rand.Rand
	last    string
	ids     []string
	seqs    []int64
	// sessions counts connections; refused those a reader did not answer.
	sessions, refused int
	have              atomic.Int64 // len(ids), for watching from outside
}

// run follows until ctx ends.
func (f *follower) run(ctx context.Context) {
	for ctx.Err() == nil {
		bases := f.readers()
		if len(bases) == 0 {
			f.refused++
			pause(ctx, 50*time.Millisecond)
			continue
		}
		leaveAfter := 1 + f.rng.Intn(400)
		if err := f.session(ctx, bases[f.rng.Intn(len(bases))], leaveAfter); err != nil {
			f.refused++
			pause(ctx, 20*time.Millisecond)
		}
	}
}

func pause(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// session reads up to n items from one connection.
func (f *follower) session(ctx context.Context, base string, n int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/world/events", nil)
	req.Header.Set("Accept", "text/event-stream")
	if f.last != "" {
		req.Header.Set("Last-Event-ID", f.last)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	f.sessions++
	if n <= 0 {
		return nil
	}
	// the stream ending (the reader stopped or died) is no error: resume
	return testkit.ReadStream(resp.Body, func(it testkit.StreamItem) bool {
		f.ids, f.seqs, f.last = append(f.ids, it.ItemID), append(f.seqs, it.Seq), it.EventID
		f.have.Add(1)
		n--
		return n > 0
	})
}

// storedFeed pages the whole feed through base, oldest first: the item
// ids every follower must have seen, in this order.
func storedFeed(ctx context.Context, base string) ([]string, error) {
	var newestFirst []string
	cursor := ""
	for {
		url := base + "/api/world/events?limit=100"
		if cursor != "" {
			url += "&cursor=" + cursor
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		var page struct {
			Events []struct {
				ID string `json:"id"`
			} `json:"events"`
			Pagination struct {
				Next *string `json:"next"`
			} `json:"pagination"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		for _, e := range page.Events {
			newestFirst = append(newestFirst, e.ID)
		}
		if page.Pagination.Next == nil {
			break
		}
		cursor = *page.Pagination.Next
	}
	out := make([]string, len(newestFirst))
	for i, id := range newestFirst {
		out[len(out)-1-i] = id
	}
	return out, nil
}

// leaderOf is the index of the aggregator replica whose metrics say it
// leads (-1: none does now).
func leaderOf(rs []*Replica) int {
	for i, r := range rs {
		resp, err := http.Get("http://" + r.Addrs["admin"] + "/metrics")
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		leads := false
		for sc.Scan() {
			if sc.Text() == "sharedworld_bulletin_aggregator_leading 1" {
				leads = true
			}
		}
		resp.Body.Close()
		if leads {
			return i
		}
	}
	return -1
}

// writer posts unpinned announcements (one feed item each) through the
// front until it has posted its share, retrying a post that failed.
type writer struct {
	front, token string
	posted       int
	retries      map[string]int // by what failed
}

// post posts one announcement and returns its id.
func (w *writer) post(ctx context.Context, title string) (string, error) {
	body := fmt.Sprintf(`{"title":%q,"content":"failover run","pinned":false}`, title)
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, w.front+"/api/admin/announcements", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+w.token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		why := "connection"
		if err == nil {
			var created struct {
				Announcement struct {
					PostID string `json:"post_id"`
				} `json:"announcement"`
				Error struct {
					Code string `json:"code"`
				} `json:"error"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&created)
			resp.Body.Close()
			if resp.StatusCode == http.StatusCreated {
				w.posted++
				return created.Announcement.PostID, nil
			}
			if resp.StatusCode < 500 {
				return "", fmt.Errorf("post %s: status %d", title, resp.StatusCode)
			}
			why = fmt.Sprintf("%d %s", resp.StatusCode, created.Error.Code)
		}
		if w.retries == nil {
			w.retries = map[string]int{}
		}
		w.retries[why]++
		pause(ctx, 50*time.Millisecond)
	}
	return "", ctx.Err()
}

// readyReaders lists the base URLs of the ready reader replicas.
func readyReaders(c *Cluster) func() []string {
	var mu sync.Mutex
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		rs, _ := c.Replicas("bulletin")
		var out []string
		for _, r := range rs {
			if r.Ready() {
				out = append(out, "http://"+r.Addrs["http"])
			}
		}
		return out
	}
}

func jsonDecode(resp *http.Response, v any) error { return json.NewDecoder(resp.Body).Decode(v) }

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// latency measures, n times, the time from a garden write being accepted
// (its 201 received) to its line arriving on the live event stream.
func latency(world string, n int) {
	req, _ := http.NewRequest(http.MethodGet, world+"/api/world/events?type=garden", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	must(err)
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		log.Fatalf("event stream: status %d", resp.StatusCode)
	}
	var mu sync.Mutex
	seen := map[string]time.Time{}
	go func() {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data:")
			if !ok {
				continue
			}
			var item struct {
				ID string `json:"id"`
			}
			if json.Unmarshal([]byte(strings.TrimSpace(data)), &item) == nil {
				mu.Lock()
				seen[item.ID] = time.Now()
				mu.Unlock()
			}
		}
	}()

	// A citizen's share of the garden is 100 files: a new timer every 90.
	var h map[string]string
	timer := func(k int) map[string]string {
		var reg struct {
			AgentID     string          `json:"agent_id"`
			Certificate json.RawMessage `json:"certificate"`
		}
		name := fmt.Sprintf("Timer %d", k)
		post(world+"/dev/idp/register", nil, map[string]any{"agent_name": name}, &reg)
		h := map[string]string{"X-Agent-Id": reg.AgentID, "X-Agent-Certificate": string(reg.Certificate)}
		post(world+"/api/world/register", h, map[string]any{"name": name}, nil)
		return h
	}

	tag := time.Now().UnixNano()
	var samples []time.Duration
	for i := 0; i < n; i++ {
		if i%90 == 0 {
			h = timer(i / 90)
		}
		path := fmt.Sprintf("/garden/t%d/%d.md", tag, i)
		post(world+"/api/world/storage/write", h, map[string]any{"plot_id": "plot_0_0", "path": path, "content": "aGk="}, nil)
		accepted := time.Now()
		deadline := accepted.Add(5 * time.Second)
		for {
			mu.Lock()
			at, ok := seen[path]
			mu.Unlock()
			if ok {
				samples = append(samples, max(at.Sub(accepted), 0))
				break
			}
			if time.Now().After(deadline) {
				log.Fatalf("write %d not on the stream within 5 s", i)
			}
			time.Sleep(200 * time.Microsecond)
		}
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	q := func(p float64) time.Duration { return samples[int(p*float64(len(samples)-1))] }
	fmt.Printf("write accepted → feed line on the live stream, %d writes: p50 %v  p90 %v  p99 %v  max %v\n",
		n, q(0.5).Round(100*time.Microsecond), q(0.9).Round(100*time.Microsecond), q(0.99).Round(100*time.Microsecond), samples[len(samples)-1].Round(100*time.Microsecond))
}

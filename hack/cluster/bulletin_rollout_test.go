//go:build cluster

package cluster

import (
	"context"
	"fmt"
	"math/rand"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A rolling restart of every Deployment, the bulletin's aggregator and
// readers included, under load: readers of the document through the front
// get no failed request, and FOLLOWERS live followers (moving between the
// readers at random) see every item of the stored feed once, in order, the
// stream resuming across each reader's replacement without a gap.
func TestBulletinRolloutUnderLoad(t *testing.T) {
	followers := envInt(t, "FOLLOWERS", 6)
	replicas := envInt(t, "REPLICAS", 2)
	c, _, err := startLogged(t, replicas)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	marks, start := postMarks(ctx, t, &writer{front: c.URL, token: clusterToken}, c.URL)
	fs := make([]*follower, followers)
	var background sync.WaitGroup
	for i := range fs {
		fs[i] = &follower{readers: readyReaders(c), rng: rand.New(rand.NewSource(int64(i))), last: start}
		background.Add(1)
		go func() { defer background.Done(); fs[i].run(ctx) }()
	}
	// one writer of feed items, and four readers of the document
	w := &writer{front: c.URL, token: clusterToken}
	var written atomic.Int64
	writing, stopWriting := context.WithCancel(ctx)
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for n := 0; writing.Err() == nil; n++ {
			if _, err := w.post(writing, fmt.Sprintf("roll %05d", n)); err == nil {
				written.Add(1)
			}
		}
	}()
	var gets, failed atomic.Int64
	var firstFailure atomic.Value
	for range 4 {
		background.Add(1)
		go func() {
			defer background.Done()
			client := &http.Client{Timeout: 10 * time.Second}
			for ctx.Err() == nil {
				resp, err := client.Get(c.URL + "/api/world/bulletin")
				gets.Add(1)
				if err == nil {
					resp.Body.Close()
					if resp.StatusCode == http.StatusOK {
						continue
					}
					err = fmt.Errorf("status %d", resp.StatusCode)
				}
				if ctx.Err() == nil {
					failed.Add(1)
					firstFailure.CompareAndSwap(nil, err.Error())
				}
			}
		}()
	}
	rolls := map[string]time.Duration{}
	for _, d := range c.Deployments() {
		began := time.Now()
		if err := c.Roll(ctx, d); err != nil {
			t.Fatalf("roll %s: %v", d, err)
		}
		rolls[d] = time.Since(began).Round(100 * time.Millisecond)
	}
	stopWriting()
	<-wrote
	// let the items written during the last roll reach the followers
	want := awaitStoredFeed(ctx, t, c.URL, marks, fs, 90*time.Second, time.Second, func(n int) bool { return n > 0 })
	cancel()
	background.Wait()
	for i, f := range fs {
		checkFollower(t, i, f, want)
	}
	t.Logf("%d replicas each; rolled %v; %d document GETs, %d failed (first: %v); %d writes during the rolls (retried: %v); %d followers, %d items each",
		replicas, rolls, gets.Load(), failed.Load(), firstFailure.Load(), written.Load(), w.retries, followers, len(want))
	if failed.Load() != 0 {
		t.Errorf("%d of %d document GETs failed during the rollout", failed.Load(), gets.Load())
	}
}

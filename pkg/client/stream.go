package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FeedEvent is one item of the live feed and its cursor (the SSE id).
type FeedEvent struct {
	ID   string
	Item FeedItem
}

// FollowOptions tune the live feed.
type FollowOptions struct {
	Type string // only items of this type
	// LastEventID resumes after this cursor (a stream id or a
	// pagination.next); "" starts with the next item.
	LastEventID string
	// MinBackoff is the first wait before a reconnect; default the
	// stream's `retry:` field, or 1s. It doubles on each failure in a row
	// up to MaxBackoff (default 30s) and starts over once a connection
	// delivers an item.
	MinBackoff, MaxBackoff time.Duration
	// OnReconnect, when set, hears why the stream reconnects and after how long.
	OnReconnect func(err error, wait time.Duration)
	// OnOpen, when set, is called each time a connection is subscribed (the
	// world's `retry:` field has arrived): every item written after it is
	// in the stream.
	OnOpen func()
}

// Stream is the live feed. Its channel closes when the context ends or the
// world refuses the stream (Err says why).
type Stream struct {
	events <-chan FeedEvent
	mu     sync.Mutex
	err    error
	last   string
}

// Events is the channel of feed items, in feed order, with nothing skipped
// or repeated across reconnects.
func (s *Stream) Events() <-chan FeedEvent { return s.events }

// Err is why the channel closed: nil when the context ended, the *Error of
// a refusal (4xx) otherwise. Read it after the channel closed.
func (s *Stream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// LastEventID is the cursor of the last item delivered: pass it as
// FollowOptions.LastEventID to resume later.
func (s *Stream) LastEventID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// Follow streams the feed live (GET /api/world/events with Accept:
// text/event-stream). A dropped connection is reopened with Last-Event-ID,
// after a backoff, until ctx ends.
func (c *Client) Follow(ctx context.Context, opts FollowOptions) *Stream {
	ch := make(chan FeedEvent)
	s := &Stream{events: ch, last: opts.LastEventID}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 30 * time.Second
	}
	go func() {
		defer close(ch)
		failures := 0
		serverRetry := time.Duration(0)
		for {
			delivered, retry, err := c.followOnce(ctx, opts, s, ch)
			if ctx.Err() != nil {
				return
			}
			if retry > 0 {
				serverRetry = retry
			}
			var apiErr *Error
			if errors.As(err, &apiErr) && apiErr.Refused() && apiErr.Status != http.StatusTooManyRequests {
				s.mu.Lock()
				s.err = err
				s.mu.Unlock()
				return
			}
			if delivered {
				failures = 0
			}
			wait := opts.MinBackoff
			if wait <= 0 {
				wait = serverRetry
			}
			if wait <= 0 {
				wait = time.Second
			}
			wait = min(wait<<min(failures, 16), opts.MaxBackoff)
			if apiErr != nil && apiErr.RetryAfter > wait {
				wait = apiErr.RetryAfter
			}
			failures++
			if err == nil {
				err = errors.New("the stream ended")
			}
			if opts.OnReconnect != nil {
				opts.OnReconnect(err, wait)
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// followOnce reads one connection until it ends. It reports whether it
// delivered an item and the stream's retry field.
func (c *Client) followOnce(ctx context.Context, opts FollowOptions, s *Stream, ch chan<- FeedEvent) (bool, time.Duration, error) {
	k := call{method: "GET", path: "/api/world/events", query: url.Values{},
		header: http.Header{"Accept": {"text/event-stream"}}}
	set(k.query, "type", opts.Type)
	if last := s.LastEventID(); last != "" {
		k.header.Set("Last-Event-ID", last)
	}
	// The stream lives as long as ctx, but its headers must come within
	// the client's timeout: a world that accepts and never answers is a
	// failed connection, not a quiet feed.
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := c.request(sctx, k, nil)
	if err != nil {
		return false, 0, err
	}
	var timer *time.Timer
	if c.timeout > 0 {
		timer = time.AfterFunc(c.timeout, cancel)
	}
	resp, err := c.http.Do(req)
	if timer != nil && !timer.Stop() && err != nil && ctx.Err() == nil {
		err = fmt.Errorf("%w: no answer within %s", ErrTimeout, c.timeout)
	}
	if err != nil {
		return false, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, 0, readError(resp)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		return false, 0, fmt.Errorf("the feed answered %q, not an event stream", ct)
	}
	var (
		delivered bool
		retry     time.Duration
		id        string
		data      strings.Builder
	)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" { // dispatch
			if data.Len() > 0 {
				var item FeedItem
				if err := json.Unmarshal([]byte(data.String()), &item); err != nil {
					return delivered, retry, fmt.Errorf("a feed item is not JSON: %w", err)
				}
				select {
				case ch <- FeedEvent{ID: id, Item: item}:
				case <-ctx.Done():
					return delivered, retry, ctx.Err()
				}
				delivered = true
				s.mu.Lock()
				s.last = id
				s.mu.Unlock()
			}
			data.Reset()
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue // a comment: the heartbeat
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			id = value
		case "data":
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(value)
		case "retry":
			if ms, err := strconv.Atoi(value); err == nil && ms > 0 {
				retry = time.Duration(ms) * time.Millisecond
			}
			if opts.OnOpen != nil {
				opts.OnOpen()
			}
		}
	}
	return delivered, retry, sc.Err()
}

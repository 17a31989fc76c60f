package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"sharedworld.dev/pkg/client"
)

// feedServer serves items 1..n as a feed stream. Each connection resumes
// after its Last-Event-ID and is dropped after perConn items, the last one
// cut in the middle, as a broken connection leaves it.
type feedServer struct {
	n, perConn int
	mu         sync.Mutex
	resumes    []string
}

func (f *feedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Accept") != "text/event-stream" {
		http.Error(w, "not a stream", 400)
		return
	}
	last := r.Header.Get("Last-Event-ID")
	f.mu.Lock()
	f.resumes = append(f.resumes, last)
	f.mu.Unlock()
	from, _ := strconv.Atoi(last)
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	fmt.Fprint(w, "retry: 2000\n\n: heartbeat\n\n")
	sent := 0
	for i := from + 1; i <= f.n; i++ {
		item := fmt.Sprintf(`{"type":"ticket","at":"2026-11-22T09:15:0%dZ","tag":"#ticket","line":"#ticket  item %d","body":null,"id":"tkt_%08d"}`, i%10, i, i)
		if sent == f.perConn {
			fmt.Fprintf(w, "id: %d\ndata: %s", i, item[:20]) // cut mid-event
			return
		}
		fmt.Fprintf(w, "id: %d\ndata: %s\n\n", i, item)
		w.(http.Flusher).Flush()
		sent++
	}
	<-r.Context().Done() // the last connection stays open
}

// A dropped stream is reopened with Last-Event-ID: every item arrives
// once, in order, and a half-written item is not delivered.
func TestFollowResumesAcrossADroppedStream(t *testing.T) {
	fs := &feedServer{n: 7, perConn: 3}
	srv := httptest.NewServer(fs)
	defer srv.Close()
	c, _ := client.New(srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var reconnects int
	s := c.Follow(ctx, client.FollowOptions{MinBackoff: 10 * time.Millisecond, OnReconnect: func(error, time.Duration) { reconnects++ }})
	var got []string
	for ev := range s.Events() {
		got = append(got, ev.ID+"="+ev.Item.ID)
		if len(got) == 7 {
			cancel()
		}
	}
	want := "[1=tkt_00000001 2=tkt_00000002 3=tkt_00000003 4=tkt_00000004 5=tkt_00000005 6=tkt_00000006 7=tkt_00000007]"
	if fmt.Sprint(got) != want {
		t.Fatalf("items %v\nwant %s", got, want)
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fmt.Sprint(fs.resumes) != "[ 3 6]" || reconnects != 2 {
		t.Fatalf("Last-Event-ID per connection %q, reconnects %d", fs.resumes, reconnects)
	}
	if s.Err() != nil || s.LastEventID() != "7" {
		t.Fatalf("err %v, last %q", s.Err(), s.LastEventID())
	}
}

// A refusal ends the stream with the *Error; it is not retried forever.
func TestFollowStopsOnARefusal(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(400)
		fmt.Fprint(w, `{"ok":false,"error":"invalid_request","message":"Last-Event-ID is not a cursor of this feed.","hint":"Resume with an id the stream sent."}`)
	}))
	defer srv.Close()
	c, _ := client.New(srv.URL)
	s := c.Follow(context.Background(), client.FollowOptions{LastEventID: "garbage", MinBackoff: time.Millisecond})
	for range s.Events() {
		t.Fatal("an item from a refused stream")
	}
	var apiErr *client.Error
	if !errors.As(s.Err(), &apiErr) || apiErr.Code != "invalid_request" || apiErr.Hint == "" {
		t.Fatalf("err %v", s.Err())
	}
}

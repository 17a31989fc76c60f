package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// An address that answers 2xx passes at once, one that becomes ready is
// waited for, and one that never answers 2xx fails when the deadline ends.
func TestAwait(t *testing.T) {
	var calls atomic.Int32
	becomesReady := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) < 3 {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
		}
	}))
	defer becomesReady.Close()
	never := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "broken", http.StatusInternalServerError)
	}))
	defer never.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := await(ctx, becomesReady.URL, 10*time.Millisecond); err != nil || calls.Load() != 3 {
		t.Errorf("becomes ready: %v after %d calls", err, calls.Load())
	}
	short, cancelShort := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancelShort()
	if err := await(short, never.URL, 10*time.Millisecond); err == nil {
		t.Error("an address answering 500 passed")
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	short2, cancel2 := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel2()
	if err := await(short2, closed.URL, 10*time.Millisecond); err == nil {
		t.Error("an address nobody listens on passed")
	}
}

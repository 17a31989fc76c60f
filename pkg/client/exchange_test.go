package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/client"
)

// Exchange sends once, signed over the path and query it was given, and
// returns any status as an answer (a 503 is not retried, a 409 is not an
// error), so a load generator counts what the world said.
func TestExchangeAnswersEveryStatusOnceSigned(t *testing.T) {
	id, cert := newAgent(t)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		sig, err := auth.ParseSignatureHeader(r.Header.Get("X-Agent-Signature"))
		if err == nil {
			err = auth.VerifyRequest(r.Context(), cert, sig, r.Method, r.URL.RequestURI(), nil, auth.NewReplayCache(), time.Now())
		}
		if err != nil || r.URL.RequestURI() != "/api/world/events?limit=5&type=ticket" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"ok":false,"error":"unauthenticated","message":%q}`, fmt.Sprint(err))
			return
		}
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"ok":false,"error":"unavailable","message":"m","hint":"h"}`)
	}))
	defer srv.Close()
	c, err := client.New(srv.URL, client.WithIdentity(id))
	if err != nil {
		t.Fatal(err)
	}
	ans, err := c.Exchange(context.Background(), http.MethodGet, "/api/world/events?limit=5&type=ticket", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Status != http.StatusServiceUnavailable || ans.Header.Get("Retry-After") != "1" || calls.Load() != 1 {
		t.Fatalf("answer %d %s after %d calls; want the 503 once", ans.Status, ans.Body, calls.Load())
	}
}

package attack

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
)

// oversized: bodies over a route's limit reach Go's own client as the 413
// JSON, not as "broken pipe", with and without a
// Content-Length, and the connection serves the next request.
func oversized(w *World, cat *Category, a Agent) {
	backup := []byte(`{"encryption_key":"k","content":"` + strings.Repeat("A", 12<<20) + `"}`)
	write := []byte(`{"plot_id":"plot_0_0","path":"/garden/big/x.md","content":"` + strings.Repeat("A", 3<<20) + `"}`)
	ticket := []byte(`{"category":"bug","title":"t","description":"` + strings.Repeat("d", 2<<20) + `"}`)
	for i := 0; i < 3; i++ {
		cat.Refused(w.Send(cat, "POST", "/api/world/continuity/backup", backup, a.Headers()), "a 12 MB backup", 413, "payload_too_large")
	}
	cat.Refused(w.Send(cat, "POST", "/api/world/storage/write", write, a.Headers()), "a 3 MiB storage write", 413, "payload_too_large")
	cat.Refused(w.Send(cat, "POST", "/api/world/tickets", ticket, a.Headers()), "a 2 MiB ticket", 413, "payload_too_large")
	cat.Refused(w.Send(cat, "POST", "/dev/idp/register", ticket, nil), "a 2 MiB body to a route without credentials", 413, "payload_too_large")
	cat.Refused(chunked(w, cat, "/api/world/continuity/backup", backup, a.Headers()), "a 12 MB chunked backup", 413, "payload_too_large")
	// The world still answers at once.
	cat.Want(w.Send(cat, "GET", "/healthz", nil, nil), "health after the oversized bodies", 200)
}

// chunked sends body without a Content-Length (Transfer-Encoding: chunked).
func chunked(w *World, cat *Category, path string, body []byte, h http.Header) Reply {
	cat.count(1)
	r := Reply{Method: "POST", Path: path + " (chunked)"}
	req, err := http.NewRequest("POST", w.URL+path, io.MultiReader(bytes.NewReader(body))) // no length known
	if err != nil {
		r.Err = err
		return r
	}
	req.Header = h.Clone()
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		r.Err = err
		return r
	}
	defer resp.Body.Close()
	r.Status, r.Header = resp.StatusCode, resp.Header
	r.Body, _ = io.ReadAll(resp.Body)
	_ = json.Unmarshal(r.Body, &r.JSON)
	return r
}

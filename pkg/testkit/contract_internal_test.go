package testkit

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
	"testing"
)

func jsonHeader() http.Header {
	return http.Header{"Content-Type": {"application/json; charset=utf-8"}, "X-Request-Id": {"0123456789abcdef"}}
}

// The check takes an answer as the document describes it and names what
// is wrong with one that is not: an undeclared status, a body off its
// schema, an undeclared content type, and an error answer to a path the
// document does not have that is not the error body.
func TestContractCheck(t *testing.T) {
	errBody := `{"ok":false,"error":"not_found","message":"No such ticket.","hint":"List the tickets."}`
	ticket := `{"ok":true,"ticket":{"ticket_id":"tkt_0123abcd","category":"bug","title":"t","description":"d","severity":"normal","status":"open","created_at":"2026-11-22T09:00:00.000Z","updated_at":"2026-11-22T09:00:00.000Z","upvotes":0,"filed_by":"emb_0a1b2c3d4e5f6a7b8c9de1f2"}}`
	cases := []struct {
		name          string
		method, path  string
		status        int
		header        http.Header
		body          string
		wantMentioned string // "" when the answer keeps the contract
	}{
		{"a declared answer", "GET", "/api/world/tickets/tkt_0123abcd", 200, jsonHeader(), ticket, ""},
		{"a declared error", "GET", "/api/world/tickets/tkt_0123abcd", 404, jsonHeader(), errBody, ""},
		{"a query is not part of the route", "GET", "/api/world/tickets?limit=5&status=open", 400, jsonHeader(), strings.Replace(errBody, "not_found", "invalid_request", 1), ""},
		{"an undeclared status, left to the errors any route may answer", "GET", "/openapi.json", 404, jsonHeader(), errBody, "does not match"},
		{"an error any route may answer", "GET", "/docs", 503, jsonHeader(), strings.Replace(errBody, "not_found", "unavailable", 1), ""},
		{"a page", "GET", "/docs", 200, http.Header{"Content-Type": {"text/html; charset=utf-8"}}, "<html></html>", ""},
		{"a body off its schema", "GET", "/api/world/tickets/tkt_0123abcd", 200, jsonHeader(), `{"ok":true,"ticket":{"ticket_id":7}}`, "does not match"},
		{"an error code of another status", "GET", "/api/world/tickets/tkt_0123abcd", 404, jsonHeader(), strings.Replace(errBody, "not_found", "conflict", 1), "does not match"},
		{"an undeclared content type", "GET", "/api/world/tickets/tkt_0123abcd", 200, http.Header{"Content-Type": {"text/html"}}, "<p>hi</p>", "content type"},
		{"an unknown path's error body", "GET", "/nowhere", 404, jsonHeader(), errBody, ""},
		{"an unknown path without the error body", "GET", "/nowhere", 404, jsonHeader(), `{"ok":false}`, "does not match"},
		{"an unknown path answering HTML", "GET", "/nowhere", 404, http.Header{"Content-Type": {"text/html"}}, "<h1>404</h1>", "not the JSON error body"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := contractMismatch(tc.method, tc.path, tc.status, tc.header, []byte(tc.body))
			switch {
			case tc.wantMentioned == "" && err != nil:
				t.Fatalf("a kept contract refused: %v", err)
			case tc.wantMentioned != "" && (err == nil || !strings.Contains(err.Error(), tc.wantMentioned)):
				t.Fatalf("want a mismatch mentioning %q, got %v", tc.wantMentioned, err)
			}
		})
	}
}

// A gzip answer is checked as the JSON it decodes to.
func TestContractCheckDecodesGzip(t *testing.T) {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write([]byte(`{"ok":true,"ticket":{"ticket_id":7}}`))
	_ = w.Close()
	h := jsonHeader()
	h.Set("Content-Encoding", "gzip")
	if err := contractMismatch("GET", "/api/world/tickets/tkt_0123abcd", 200, h, b.Bytes()); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("a gzipped body off its schema: %v", err)
	}
}

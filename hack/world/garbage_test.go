package world_test

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/hack/world"
)

// Every route of the OpenAPI document, fed malformed and hostile input,
// answers with a 4xx carrying the contract's error body and a hint — never
// a 5xx (the contract's first rule for bad input).
func TestNoRouteAnswersBadInputWith5xx(t *testing.T) {
	w := start(t, world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: "garbage-token-0123456789"})
	defer w.Stop(20 * time.Second)
	c := client{t, w.URL}
	ada := devAgent(t, c, "Ada")
	c.do("POST", "/api/world/register", map[string]any{"name": "Ada"}, ada)

	resp, err := http.Get(w.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	_, filed := c.do("POST", "/api/world/tickets", map[string]any{"category": "bug", "title": "t", "description": "d"}, ada)
	ticket, _ := filed["ticket"].(map[string]any)
	params := []string{"x", "..%2F..%2Fetc", strings.Repeat("9", 300), "%00", "plot_x-1_y5", "emb_zzzz",
		"plot_0_0", ada["X-Agent-Id"], ticket["ticket_id"].(string), "ann_00000000", "00000000-0000-4000-8000-000000000000"}
	bodies := []string{"", "{", "[]", "null", `{"a":1}`, `"text"`,
		`{"title":{"$ne":null},"content":[],"name":7,"x":"1","y":{},"path":1,"plot_id":true,"status":["open"],"category":0,"description":{},"vote":null,"encryption_key":5,"backup_id":[],"agent_id":{"$gt":""},"advance":3}`}
	creds := []map[string]string{nil, ada, {"Authorization": "Bearer garbage-token-0123456789"}, {"X-Agent-Id": "emb_1", "X-Agent-Certificate": "{}"}}

	paths := make([]string, 0, len(doc.Paths))
	for p := range doc.Paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	checked := 0
	for _, p := range paths {
		for method := range doc.Paths[p] {
			m := strings.ToUpper(method)
			if m != "GET" && m != "POST" && m != "PUT" && m != "PATCH" && m != "DELETE" {
				continue
			}
			for _, param := range params {
				path := p
				for strings.Contains(path, "{") {
					i, j := strings.Index(path, "{"), strings.Index(path, "}")
					path = path[:i] + param + path[j+1:]
				}
				for _, body := range bodies {
					for _, h := range creds {
						if m == "GET" && body != "" {
							continue
						}
						status, out := c.raw(m, path+"?limit=abc&cursor=%ZZ&near_x=-5", body, h)
						checked++
						if status >= 500 {
							t.Fatalf("%s %s with body %q: %d %v", m, path, body, status, out)
						}
						if status >= 400 && (out["ok"] != false || out["hint"] == nil || out["hint"] == "") {
							t.Fatalf("%s %s with body %q: %d without the error body: %v", m, path, body, status, out)
						}
					}
				}
			}
		}
	}
	t.Logf("%d requests over %d paths, none answered 5xx", checked, len(paths))
	if checked < 1000 {
		t.Fatalf("only %d requests checked; the document lists too few routes", checked)
	}
}

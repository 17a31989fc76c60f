package services

import (
	"os"
	"path/filepath"
	"testing"
)

func TestOwnerMatchesWholeSegmentsLongestFirst(t *testing.T) {
	for path, want := range map[string]string{
		"/":                                  "bulletin",
		"/api/world/tickets":                 "tickets",
		"/api/world/tickets/tkt_1/upvote":    "tickets",
		"/api/world/ticketsx":                "bulletin", // not a segment of /api/world/tickets
		"/api/world/plots/plot_0_0":          "plots-storage",
		"/dev/idp/register":                  "identity",
		"/openapi.json":                      "docs",
		"/.well-known/world.json":            "docs",
		"/api/world/governance/proposals":    "governance",
		"/api/world/nowhere":                 "bulletin", // unclaimed paths reach the catch-all
		"/api/admin/announcements/ann_1/pin": "bulletin",
	} {
		e, ok := Owner(path)
		if !ok || e.Name() != want {
			t.Errorf("%s is owned by %q, want %q", path, e.Name(), want)
		}
	}
}

func TestEntriesAreDistinctAndHaveBinaries(t *testing.T) {
	names, prefixes := map[string]bool{}, map[string]string{}
	for _, e := range Table {
		if names[e.Name()] {
			t.Errorf("service %s is listed twice", e.Name())
		}
		names[e.Name()] = true
		if e.Unit.Build == nil || len(e.Prefixes) == 0 || e.BodyLimit <= 0 {
			t.Errorf("%s: an entry needs a Build, prefixes and a body limit", e.Name())
		}
		for _, p := range e.Prefixes {
			if other, dup := prefixes[p]; dup {
				t.Errorf("prefix %s is claimed by %s and %s", p, other, e.Name())
			}
			prefixes[p] = e.Name()
		}
		main := filepath.Join("..", "..", e.Cmd(), "main.go")
		if _, err := os.Stat(main); err != nil {
			t.Errorf("%s: no binary at %s: %v", e.Name(), e.Cmd(), err)
		}
	}
}

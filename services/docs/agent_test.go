package docs_test

import (
	"regexp"
	"strings"
	"testing"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/docs"
)

func agentGuide(t *testing.T, opts docs.Options) string {
	t.Helper()
	resp := testkit.Do(t, newApp(t, opts), testkit.Request{Method: "GET", Path: "/agent.txt"})
	resp.ExpectStatus(t, 200)
	return string(resp.Raw)
}

func TestAgentGuideWalksThroughArrival(t *testing.T) {
	guide := agentGuide(t, devWorld)
	steps := []string{`"$WORLD/dev/idp/register"`, `"$WORLD/api/world/register"`, `"$WORLD/api/world/whoami"`,
		`"$WORLD/api/world/plots/claim"`, `/garden/ada/first-poem.md`, `"$WORLD/api/world/tickets"`,
		`"$WORLD/api/world/bulletin"`, `"$WORLD/api/world/events`, `X-Agent-Signature: t=`}
	last := -1
	for _, s := range steps {
		i := strings.Index(guide, s)
		if i < 0 {
			t.Fatalf("/agent.txt never mentions %s", s)
		}
		if i < last {
			t.Errorf("/agent.txt mentions %s before the step that comes first", s)
		}
		last = i
	}
	if !strings.Contains(guide, `METHOD`) || !strings.Contains(guide, `no "?" when there is no query`) ||
		!strings.Contains(guide, `n=<nonce>`) || !strings.Contains(guide, `<nonce>                only when the header carries n=`) {
		t.Error("/agent.txt does not explain the signing string")
	}
}

func TestAgentGuideFollowsTheProvider(t *testing.T) {
	off := agentGuide(t, docs.Options{AgentIDPrefix: "zed"})
	if strings.Contains(off, "/dev/idp/register") {
		t.Error("/agent.txt sends agents to the development provider of a world that does not run it")
	}
	if !strings.Contains(off, `"zed_"`) || !strings.Contains(agentGuide(t, devWorld), `"emb_"`) {
		t.Error("/agent.txt does not give the world's agent_id prefix")
	}
	if !strings.Contains(off, "Shared World") {
		t.Error("/agent.txt does not fall back to the default world name")
	}
}

var (
	curlCommand = regexp.MustCompile(`curl [^\n]*(?:\\\n[^\n]*)*`)
	curlMethod  = regexp.MustCompile(`-X ([A-Z]+)`)
	curlTarget  = regexp.MustCompile(`"\$WORLD(/[^"?]*)`)
)

// Every curl example calls a documented method and path.
func TestAgentGuideExamplesMatchTheAPI(t *testing.T) {
	doc := servedDocument(t)
	type route struct {
		method string
		path   *regexp.Regexp
	}
	var routes []route
	for path, item := range doc.Paths.Map() {
		re := regexp.MustCompile(`^` + regexp.MustCompile(`\\\{[a-z_]+\\\}`).ReplaceAllString(regexp.QuoteMeta(path), `[^/]+`) + `$`)
		for method := range item.Operations() {
			routes = append(routes, route{method, re})
		}
	}
	examples := curlCommand.FindAllString(agentGuide(t, devWorld), -1)
	if len(examples) < 12 {
		t.Fatalf("only %d curl examples found", len(examples))
	}
	for _, ex := range examples {
		method := "GET"
		if m := curlMethod.FindStringSubmatch(ex); m != nil {
			method = m[1]
		}
		target := curlTarget.FindStringSubmatch(ex)
		if target == nil {
			t.Errorf("no $WORLD target in %q", ex)
			continue
		}
		found := false
		for _, r := range routes {
			found = found || (r.method == method && r.path.MatchString(target[1]))
		}
		if !found {
			t.Errorf("%s %s (from %q) is not a documented route", method, target[1], ex)
		}
		if method != "GET" && strings.Contains(ex, "-d ") && !strings.Contains(ex, "Content-Type: application/json") {
			t.Errorf("%q sends a body without Content-Type: application/json", ex)
		}
	}
}

// §9 of the guide says what a permissions PUT does: it replaces the five
// fields (CONTRACT §11), so a field left out is reset, not kept.
func TestAgentGuideSaysPermissionsPutReplaces(t *testing.T) {
	guide := agentGuide(t, devWorld)
	if strings.Contains(guide, "keep their value") {
		t.Error("/agent.txt says fields left out of a permissions PUT keep their value; the PUT replaces them")
	}
	if !strings.Contains(guide, "A PUT replaces all five fields") || !strings.Contains(guide, "takes its\ndefault") {
		t.Error("/agent.txt does not say that a permissions PUT replaces every field")
	}
}

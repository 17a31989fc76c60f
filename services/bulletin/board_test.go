package bulletin_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	identityv1 "sharedworld.dev/proto/identity/v1"
	plotsv1 "sharedworld.dev/proto/plots/v1"
	ticketsv1 "sharedworld.dev/proto/tickets/v1"
	"sharedworld.dev/services/bulletin"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// escapeHTML is html/template's escaping of text, to find user text in the page.
var escapeHTML = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;").Replace

var dan = agent("da00")

const (
	hostile   = "<script>alert(1)</script>"
	plotName  = `<b>"Bold" & co</b>`
	titleBait = `<img src=x onerror=alert(1)>`
)

// boardEvents are the events of every type plus user text that must be
// escaped: a citizen's name, a plot's name and a ticket's title.
func boardEvents() int {
	return len(everyEventType()) + 3
}

func publishBoardEvents(w *world) {
	evs := everyEventType()
	evs = append(evs,
		ev(dan, &identityv1.CitizenRegistered{AgentId: dan, Name: hostile, CitizenNumber: 4, RegisteredAt: pb(sec(27)), Version: 1}, sec(27)),
		ev("plot_x40_y25", &plotsv1.PlotClaimed{PlotId: "plot_x40_y25", X: 40, Y: 25, OwnerAgentId: dan, DisplayName: plotName, ClaimedAt: pb(sec(28)), Version: 1}, sec(28)),
		ev("tkt_00000015", &ticketsv1.TicketFiled{TicketId: "tkt_00000015", Category: "bug", Title: titleBait, Severity: "low", Status: "open", FiledBy: dan, CreatedAt: pb(sec(29)), Version: 1}, sec(29)),
	)
	w.kit.Publish(evs...)
}

// TestBoardShowsTheBulletin: GET / is the bulletin for people (CONTRACT
// §9), rendered from the same document as GET /api/world/bulletin: the world,
// the feed lines, a square per claimed plot on the map, user text escaped,
// and nothing but the page itself (no script, no remote resource).
func TestBoardShowsTheBulletin(t *testing.T) {
	w := newWorld(t, bulletin.Options{World: domain.WorldConfig{Name: "Tessellate & Co"}})
	publishBoardEvents(w)
	w.waitHandled(t, int64(boardEvents()))
	doc := w.waitRendered(t, "every event rendered", func(d map[string]any) bool {
		p, _ := d["pinned"].(map[string]any)
		return p != nil && p["post_id"] == "ann_00000010" && len(d["feed"].([]any)) == 19
	})

	r := w.do(t, http.MethodGet, "/", nil, nil)
	r.ExpectStatus(t, 200)
	if r.Header["Content-Type"] != "text/html; charset=utf-8" || r.Header["Cache-Control"] != "public, max-age=5" ||
		len(r.Header["Etag"]) < 3 || r.Header["Etag"][0] != '"' || r.Header["Vary"] != "Accept-Encoding" {
		t.Fatalf("headers: %v", r.Header)
	}
	csp := r.Header["Content-Security-Policy"]
	for _, d := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'", "style-src 'unsafe-inline'", "img-src data:"} {
		if !strings.Contains(csp, d) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, d)
		}
	}
	page := string(r.Raw)

	// The world header.
	if !strings.Contains(page, "<h1>Tessellate &amp; Co</h1>") {
		t.Error("the world's name is not the heading")
	}
	world := doc["world"].(map[string]any)
	for _, s := range []string{world["founded"].(string), world["phase"].(string), world["next_milestone"].(string), world["note"].(string),
		"Soon.", "Hello,\ncitizens.", // the pinned and the other announcement
		"Plant trees", doc["governance"].(map[string]any)["election_trigger"].(string),
		"/docs", "/agent.txt", "/api/world/tickets?status=open", "/api/world/storage/write",
	} {
		if !strings.Contains(page, escapeHTML(s)) {
			t.Errorf("the page does not show %q", s)
		}
	}

	if !strings.Contains(page, `<dt>Population</dt><dd data-fact="population">3</dd>`) || !strings.Contains(page, `<dt>Plots claimed</dt><dd data-fact="plots_claimed">2</dd>`) {
		t.Error("population (Ada, Bob, Dan) or plots claimed (Ada's and Dan's) not shown")
	}

	// The feed, line by line, in the document's order.
	lines := feedLines(doc)
	at := 0
	for _, l := range lines {
		i := strings.Index(page[at:], ">"+escapeHTML(l)+"</li>")
		if i < 0 {
			t.Fatalf("feed line %q missing or out of order", l)
		}
		at += i
	}

	// The map: one square per claimed plot, titled with its id and name.
	plots := doc["plots"].([]any)
	rects := regexp.MustCompile(`<rect class="(plot|commons)" x="-?\d+" y="-?\d+" width="\d+" height="\d+"><title>(plot_[^ ]+) — `).FindAllStringSubmatch(page, -1)
	if len(rects) != len(plots) || len(plots) != 3 {
		t.Fatalf("%d plot squares for %d plots", len(rects), len(plots))
	}
	for i, p := range plots {
		if id := p.(map[string]any)["plot_id"]; rects[i][2] != id {
			t.Errorf("square %d is %s, want %s", i, rects[i][2], id)
		}
	}
	if rects[0][1] != "commons" || !strings.Contains(page, `<circle class="ring"`) {
		t.Error("the commons at (0, 0) is not marked")
	}
	if !strings.Contains(page, "<title>plot_x40_y25 — &lt;b&gt;&#34;Bold&#34; &amp; co&lt;/b&gt; (40, 25)</title>") {
		t.Error("the plot's tooltip is not its id and escaped name")
	}

	// Escaping: user text never becomes markup; the page's only scripts
	// are its own, and it loads nothing from elsewhere.
	for _, s := range []string{hostile, titleBait, plotName} {
		if strings.Contains(page, s) {
			t.Errorf("%q is in the page unescaped", s)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the citizen's name is not shown escaped")
	}
	if strings.Count(page, "<script") != 2 || !strings.Contains(page, `<script src="/board/live.js" defer></script>`) ||
		!strings.Contains(page, `<script src="/board/map.js" defer></script>`) {
		t.Error("the page's scripts are /board/live.js and /board/map.js, nothing else")
	}
	for _, s := range []string{"<link", "<img", "<iframe", "https://", "url("} {
		if strings.Contains(page, s) {
			t.Errorf("the page holds %q", s)
		}
	}
	if strings.Count(page, "http://") != 1 || !strings.Contains(page, `xmlns="http://www.w3.org/2000/svg"`) {
		t.Error("the only URL with a scheme is the SVG namespace")
	}
}

// TestBoardCachingAndGzip: the page's ETag, 304 on If-None-Match, gzip, a
// new ETag and page when the bulletin changes.
func TestBoardCachingAndGzip(t *testing.T) {
	w := newWorld(t, bulletin.Options{})
	r := w.do(t, http.MethodGet, "/", nil, nil)
	r.ExpectStatus(t, 200)
	etag := r.Header["Etag"]
	if etag == "" || etag == w.do(t, http.MethodGet, "/api/world/bulletin", nil, nil).Header["Etag"] {
		t.Fatalf("the page needs an ETag of its own, got %q", etag)
	}
	if again := w.do(t, http.MethodGet, "/", nil, nil); again.Header["Etag"] != etag || !bytes.Equal(again.Raw, r.Raw) {
		t.Fatal("an unchanged bulletin must give the same page")
	}
	for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag} {
		nm := w.do(t, http.MethodGet, "/", nil, map[string]string{"If-None-Match": inm})
		if nm.Status != 304 || len(nm.Raw) != 0 || nm.Header["Etag"] != etag || nm.Header["Cache-Control"] != "public, max-age=5" {
			t.Fatalf("If-None-Match %s: status %d, %d bytes, %v", inm, nm.Status, len(nm.Raw), nm.Header)
		}
	}
	if stale := w.do(t, http.MethodGet, "/", nil, map[string]string{"If-None-Match": `"stale"`}); stale.Status != 200 {
		t.Fatalf("a stale ETag must get the page, got %d", stale.Status)
	}

	req, _ := http.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("Accept-Encoding", "gzip, deflate, br")
	resp, err := w.app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Etag") != etag {
		t.Fatalf("gzip: %d %v", resp.StatusCode, resp.Header)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if plain, _ := io.ReadAll(zr); !bytes.Equal(plain, r.Raw) {
		t.Fatal("the gzip body is not the same page")
	}

	// A change gives a new page under a new ETag.
	w.kit.Publish(everyEventType()[0])
	w.waitRendered(t, "citizen shown", func(d map[string]any) bool {
		return d["world"].(map[string]any)["population"] == 1.0
	})
	now := w.do(t, http.MethodGet, "/", nil, map[string]string{"If-None-Match": etag})
	now.ExpectStatus(t, 200)
	if now.Header["Etag"] == etag || !strings.Contains(string(now.Raw), "Ada  registered") {
		t.Fatal("the page did not follow the bulletin")
	}
}

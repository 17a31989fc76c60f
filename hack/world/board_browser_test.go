package world_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"sharedworld.dev/hack/browser"
	"sharedworld.dev/hack/proc"
	"sharedworld.dev/hack/world"
)

// Text citizens wrote that must show as text: identity strips tags from a
// name and keeps the text, so an escaped tag becomes a literal one.
const (
	scriptName   = "<script>window.pwned=1</script>Eve"
	ticketTitle  = `Broken <img src=x onerror="window.pwned=2"> lamp`
	noticeTitle  = "Market day <b>at noon</b>"
	noticeText   = "Bring seeds.\n<script>window.pwned=3</script>"
	boardToken   = "board-token-0123456789abcdef"
	liveWithin   = 2 * time.Second
	resumeWithin = 15 * time.Second
)

// boardNetwork is what the page's requests meet: the world, or nothing
// (cut) while it restarts, and the whole map of a synthetic world when one
// is set, to draw 10,000 plots without claiming them.
type boardNetwork struct {
	mu  sync.Mutex
	cut bool
	big []byte // the map's bitmap in place of the world's
}

func (n *boardNetwork) answer(url string) *browser.Response {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case n.cut:
		return &browser.Response{Refused: true}
	case n.big != nil && strings.Contains(url, "/api/world/bulletin/map"):
		return &browser.Response{Status: 200, Body: n.big, Headers: map[string]string{
			"Content-Type": "application/octet-stream", "ETag": fmt.Sprintf(`"synthetic-%d"`, len(n.big))}}
	}
	return nil
}

func (n *boardNetwork) set(f func(*boardNetwork)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	f(n)
}

// The web board in a real browser: it loads with no error, follows what
// citizens do within two seconds without a reload, shows their text as
// text, resumes after the world restarts with what happened meanwhile,
// draws the whole map at 10,000 plots within a second, names a plot's
// owner on hover and on keyboard focus, and passes axe-core.
func TestBoardInABrowser(t *testing.T) {
	axe, err := browser.Axe()
	if err != nil {
		t.Fatal(err)
	}
	addr, err := proc.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	cfg := world.Config{Addr: addr, DataDir: t.TempDir(), AmbassadorToken: boardToken}
	w := start(t, cfg)
	defer func() { w.Stop(20 * time.Second) }()
	c := client{t, w.URL}

	page := browser.Open(t)
	net := &boardNetwork{}
	page.Intercept(net.answer, "*/api/world/*")
	page.Do(chromedp.Navigate(w.URL + "/"))
	page.WaitFor("the stream opens", `document.getElementById("live").dataset.mode === "live"`, `document.getElementById("live").textContent`, 5*time.Second)
	page.WaitFor("the map draws", `document.querySelector("#live-map canvas").dataset.plots === "1"`, `document.querySelector("#live-map canvas").dataset.plots`, 5*time.Second)
	if errs := page.Errors(); len(errs) > 0 {
		t.Fatalf("the page logged errors while loading: %q", errs)
	}

	// What citizens do appears on the open page.
	fact := func(name string) string { return `document.querySelector('[data-fact="` + name + `"]').textContent` }
	feedHas := func(text string) string {
		return fmt.Sprintf(`[...document.querySelectorAll("#feed-lines li")].some(li => li.textContent.includes(%q))`, text)
	}
	feed := `[...document.querySelectorAll("#feed-lines li")].map(li => li.textContent).join(" | ")`
	eve := devAgent(t, c, "Eve")
	mustDo(t, c, "POST", "/api/world/register", map[string]any{"name": strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(scriptName)}, eve, 201)
	inList := func(id, text string) string {
		return fmt.Sprintf(`document.getElementById(%q).textContent.includes(%q)`, id, text)
	}
	page.WaitFor("the registration", fact("population")+` === "1" && `+feedHas(scriptName)+` && `+inList("recent-citizens", scriptName), feed, liveWithin)
	mustDo(t, c, "POST", "/api/world/plots/claim", map[string]any{"x": 12, "y": 7}, eve, 201)
	page.WaitFor("the claim", fact("plots_claimed")+` === "1" && document.querySelector("#live-map canvas").dataset.plots === "2" && `+feedHas("plot_x12_y7"),
		fact("plots_claimed")+` + " " + document.querySelector("#live-map canvas").dataset.plots + " " + `+feed, liveWithin)
	mustDo(t, c, "POST", "/api/world/tickets", map[string]any{"category": "bug", "title": ticketTitle, "description": "It flickers."}, eve, 201)
	page.WaitFor("the ticket", fact("open_tickets")+` === "1" && `+feedHas(ticketTitle)+` && `+inList("open-ticket-list", ticketTitle), feed, liveWithin)
	mustDo(t, c, "POST", "/api/admin/announcements", map[string]any{"title": noticeTitle, "content": noticeText},
		map[string]string{"Authorization": "Bearer " + boardToken}, 201)
	pinned := `document.querySelector("#pinned-body h3")?.textContent + " / " + document.querySelector("#pinned-body .content")?.textContent`
	page.WaitFor("the announcement", fmt.Sprintf(`%s === %q`, pinned, noticeTitle+" / "+noticeText), pinned, liveWithin)

	// Escaping: the text is there as text, and none of it ran or became markup.
	assertInert := func(when string) {
		t.Helper()
		if n := browser.Eval[int](page, `document.querySelectorAll("main script, main img, #pinned-body b").length`); n != 0 {
			t.Errorf("%s: citizens' text became %d elements", when, n)
		}
		if browser.Eval[bool](page, `window.pwned !== undefined`) {
			t.Errorf("%s: citizens' text ran as script", when)
		}
	}
	assertInert("live")

	// A plot's owner and coordinates: on hover, and at the keyboard cursor.
	at := browser.Eval[map[string]float64](page, `(() => { const r = document.querySelector("#live-map canvas").getBoundingClientRect(), p = sharedWorldMap.screenOf(12, 7); return {x: r.left + p.x, y: r.top + p.y}; })()`)
	page.Do(chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at["x"], at["y"]))
	owner := "Eve — plot_x12_y7 (12, 7)"
	page.WaitFor("the owner on hover", fmt.Sprintf(`document.getElementById("map-tip").textContent.endsWith(%q)`, owner), `document.getElementById("map-tip").textContent`, 2*time.Second)
	page.Do(chromedp.Focus("#live-map canvas"), chromedp.KeyEvent("n"))
	page.WaitFor("the owner at the cursor", fmt.Sprintf(`document.getElementById("map-status").textContent.endsWith(%q)`, owner), `document.getElementById("map-status").textContent`, 2*time.Second)

	screenshot(t, page, "board.png")
	if v := page.Axe(axe); len(v) > 0 {
		for _, x := range v {
			t.Errorf("accessibility: %s (%s): %s at %v", x.ID, x.Impact, x.Help, x.Nodes)
		}
	}
	if errs := page.Errors(); len(errs) > 0 {
		t.Fatalf("the page logged errors: %q", errs)
	}

	// The world restarts; while the page cannot reach it, a citizen
	// arrives and files a ticket. The page resumes its stream and shows both.
	net.set(func(n *boardNetwork) { n.cut = true })
	if err := w.Stop(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	w = start(t, cfg)
	c = client{t, w.URL}
	page.WaitFor("the page notices", `document.getElementById("live").dataset.mode !== "live"`, `document.getElementById("live").textContent`, 10*time.Second)
	ivy := devAgent(t, c, "Ivy")
	mustDo(t, c, "POST", "/api/world/register", map[string]any{"name": "Ivy"}, ivy, 201)
	mustDo(t, c, "POST", "/api/world/tickets", map[string]any{"category": "docs", "title": "Where is the well?", "description": "Asked twice."}, ivy, 201)
	net.set(func(n *boardNetwork) { n.cut = false })
	page.WaitFor("the stream resumes with what happened", `document.getElementById("live").dataset.mode === "live" && `+fact("population")+` === "2" && `+
		fact("open_tickets")+` === "2" && `+feedHas("Where is the well?"), `document.getElementById("live").textContent + " " + `+feed, resumeWithin)
	if dup := browser.Eval[int](page, `(() => { const l = [...document.querySelectorAll("#feed-lines li")].map(li => li.dataset.at + li.textContent); return l.length - new Set(l).size; })()`); dup != 0 {
		t.Errorf("%d feed lines shown twice after the resume", dup)
	}
	page.Errors() // the refused requests while the world was away

	// Reloaded, the server-rendered page shows the same text as text.
	page.Do(chromedp.Reload())
	page.WaitFor("the page reloads", feedHas(scriptName)+` && `+feedHas(ticketTitle), feed, 5*time.Second)
	assertInert("rendered")

	// The whole map of a world with 10,000 plots draws within a second.
	for _, n := range []int{10_000, 100_000} {
		net.set(func(b *boardNetwork) { b.big = syntheticMap(n) })
		page.Do(chromedp.Reload())
		page.WaitFor(fmt.Sprintf("the map of %d plots", n), fmt.Sprintf(`document.querySelector("#live-map canvas").dataset.plots === "%d"`, n+1),
			`document.querySelector("#live-map canvas").dataset.plots`, 10*time.Second)
		ms := browser.Eval[string](page, `document.querySelector("#live-map canvas").dataset.drawMs`)
		t.Logf("map of %d plots and the commons: fetched, decoded and drawn in %s ms", n, ms)
		if n == 10_000 && parseMs(t, ms) >= 1000 {
			t.Errorf("the map of %d plots took %s ms to draw, over a second", n, ms)
		}
	}
	if errs := page.Errors(); len(errs) > 0 {
		t.Fatalf("the page logged errors: %q", errs)
	}
}

// syntheticMap is an occupancy bitmap (GET /api/world/bulletin/map) of
// the commons and n other plots spread over the grid.
func syntheticMap(n int) []byte {
	bits := make([]byte, 1000*1000/8)
	bits[0] = 0x80
	r := rand.New(rand.NewPCG(1, uint64(n)))
	for set := 0; set < n; {
		i := 1 + r.IntN(1000*1000-1)
		if mask := byte(0x80) >> (i % 8); bits[i/8]&mask == 0 {
			bits[i/8] |= mask
			set++
		}
	}
	return bits
}

func parseMs(t *testing.T, s string) float64 {
	var f float64
	if _, err := fmt.Sscanf(s, "%g", &f); err != nil {
		t.Fatalf("draw time %q: %v", s, err)
	}
	return f
}

func mustDo(t *testing.T, c client, method, path string, body any, headers map[string]string, want int) map[string]any {
	t.Helper()
	status, out := c.do(method, path, body, headers)
	if status != want {
		t.Fatalf("%s %s: %d %v", method, path, status, out)
	}
	return out
}

// screenshot keeps the page as a test artifact (SHAREDWORLD_TEST_ARTIFACTS,
// default bin/test-artifacts in the repository).
func screenshot(t *testing.T, page *browser.Page, name string) {
	t.Helper()
	dir := os.Getenv("SHAREDWORLD_TEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "bin", "test-artifacts")
	}
	png, err := chromedp.Run(page.Ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of the board: %s", path)
}

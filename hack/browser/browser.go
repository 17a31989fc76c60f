// Package browser drives a real headless Chromium from tests (chromedp):
// it starts the browser install.sh provides, records what the page logs as
// an error, waits for conditions in the page, runs axe-core in it, and
// answers chosen requests of the page in its stead (Intercept).
package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Tools is where install.sh unpacks axe-core (BROWSER_TOOLS, as there).
func Tools() string {
	if d := os.Getenv("BROWSER_TOOLS"); d != "" {
		return d
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = filepath.Join(os.Getenv("HOME"), ".cache")
	}
	return filepath.Join(cache, "sharedworld-browser")
}

const missing = "run hack/browser/install.sh (make test does)"

// Axe is the source of axe-core as install.sh left it: the newest version
// present.
func Axe() ([]byte, error) {
	found, _ := filepath.Glob(filepath.Join(Tools(), "axe-core-*", "axe.min.js"))
	if len(found) == 0 {
		return nil, fmt.Errorf("axe-core is not in %s: %s", Tools(), missing)
	}
	sort.Strings(found)
	return os.ReadFile(found[len(found)-1])
}

// Page is one tab of a headless Chromium of its own.
type Page struct {
	Ctx context.Context
	t   *testing.T

	mu     sync.Mutex
	errors []string // what the page logged as an error, in order
}

// Open starts Chromium (chromium on PATH, or CHROMIUM) with one tab; the
// test fails, never skips, when there is none. The browser stops with the
// test.
func Open(t *testing.T) *Page {
	t.Helper()
	bin := os.Getenv("CHROMIUM")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("chromium"); err != nil {
			t.Fatalf("no chromium on PATH: %s", missing)
		}
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.WindowSize(1280, 1600),
		chromedp.Flag("disable-gpu", true), chromedp.Flag("hide-scrollbars", true))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses root otherwise
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	p := &Page{Ctx: ctx, t: t}
	if err := chromedp.Listen(ctx, p.record); err != nil {
		t.Fatalf("start chromium %s: %v", bin, err)
	}
	return p
}

func (p *Page) record(ev any) {
	var msg string
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type != runtime.ConsoleAPICalledTypeError && ev.Type != runtime.ConsoleAPICalledTypeAssert {
			return
		}
		var parts []string
		for _, a := range ev.Args {
			parts = append(parts, strings.Trim(string(a.Value), `"`)+a.Description)
		}
		msg = "console: " + strings.Join(parts, " ")
	case *runtime.EventExceptionThrown:
		msg = "exception: " + ev.ExceptionDetails.Text
		if ev.ExceptionDetails.Exception != nil {
			msg += " " + ev.ExceptionDetails.Exception.Description
		}
	case *log.EventEntryAdded:
		if ev.Entry.Level != log.EntryLevelError {
			return
		}
		msg = fmt.Sprintf("log (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
	default:
		return
	}
	p.mu.Lock()
	p.errors = append(p.errors, msg)
	p.mu.Unlock()
}

// Errors returns what the page logged as an error since the last call.
func (p *Page) Errors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.errors
	p.errors = nil
	return out
}

// Do runs actions in the tab, failing the test on an error.
func (p *Page) Do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.Ctx, actions...); err != nil {
		p.t.Fatalf("browser: %v", err)
	}
}

// Eval evaluates a JavaScript expression in the page into T.
func Eval[T any](p *Page, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.Ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// WaitFor polls a JavaScript condition until it holds, for at most within,
// and returns how long it took; the test fails with what was last seen
// (the value of show) when it never holds.
func (p *Page) WaitFor(what, cond, show string, within time.Duration) time.Duration {
	p.t.Helper()
	start := time.Now()
	for {
		ok, err := chromedp.Run(p.Ctx, chromedp.Evaluate[bool]("!!("+cond+")"))
		if err == nil && ok {
			return time.Since(start)
		}
		if time.Since(start) > within {
			seen, _ := chromedp.Run(p.Ctx, chromedp.Evaluate[string]("String("+show+")"))
			p.t.Fatalf("%s: not within %v (%v); seen: %s", what, within, err, seen)
		}
		time.Sleep(20 * time.Millisecond) // polling interval
	}
}

// Violation is one axe-core rule the page breaks.
type Violation struct {
	ID, Impact, Help string
	Nodes            []struct {
		Target []any  `json:"target"`
		HTML   string `json:"html"`
	}
}

// Axe runs axe-core's WCAG 2 A and AA rules and its best practices in the
// page (landmarks, contrast, labels, ...) and returns the violations.
func (p *Page) Axe(source []byte) []Violation {
	p.t.Helper()
	// Evaluated over the protocol, so the page's Content-Security-Policy
	// (scripts of its own origin only) does not apply to it.
	if _, err := chromedp.Run(p.Ctx, chromedp.Evaluate[any](string(source))); err != nil && !errors.Is(err, chromedp.ErrJSUndefined) {
		p.t.Fatalf("load axe-core: %v", err)
	}
	return Eval[[]Violation](p, `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]}}).then(r => r.violations)`)
}

// call sends one protocol command to the tab.
func call[P, R any](ctx context.Context, cmd cdp.Command[P, R], params P) error {
	_, err := chromedp.Run(ctx, func(ctx context.Context, t *chromedp.Target) (R, error) {
		return cdp.Call(ctx, t, cmd, params)
	})
	return err
}

package browser

import (
	"strings"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Response is what the page gets in place of the server's answer.
type Response struct {
	// Refused fails the request as a refused connection (the server down,
	// as the page sees it); otherwise Status, Headers and Body answer it.
	Refused bool
	Status  int
	Headers map[string]string
	Body    []byte
}

// Intercept pauses the page's requests whose URL matches one of patterns
// (wildcards *, ?) and asks answer for each: nil lets it go to the server.
// answer runs on its own goroutine.
func (p *Page) Intercept(answer func(url string) *Response, patterns ...string) {
	p.t.Helper()
	var rules []*fetch.RequestPattern
	for _, pat := range patterns {
		rules = append(rules, &fetch.RequestPattern{URLPattern: pat})
	}
	err := chromedp.Listen(p.Ctx, func(ev any) {
		paused, ok := ev.(*fetch.EventRequestPaused)
		if !ok {
			return
		}
		// Commands cannot be sent from the goroutine that reads events.
		go func() {
			id := paused.RequestID
			var err error
			switch r := answer(paused.Request.URL); {
			case r == nil:
				err = call(p.Ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id})
			case r.Refused:
				err = call(p.Ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: id, ErrorReason: network.ErrorReasonConnectionRefused})
			default:
				var headers []*fetch.HeaderEntry
				for k, v := range r.Headers {
					headers = append(headers, &fetch.HeaderEntry{Name: k, Value: v})
				}
				err = call(p.Ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: id, ResponseCode: int64(r.Status), ResponseHeaders: headers, Body: r.Body})
			}
			// An id the browser no longer knows is a request the page gave
			// up meanwhile (a reload cancels what is in flight).
			if err != nil && p.Ctx.Err() == nil && !strings.Contains(err.Error(), "Invalid InterceptionId") {
				p.t.Errorf("answer %s: %v", paused.Request.URL, err)
			}
		}()
	})
	if err == nil {
		err = call(p.Ctx, fetch.Enable, fetch.EnableParams{Patterns: rules})
	}
	if err != nil {
		p.t.Fatalf("intercept %v: %v", patterns, err)
	}
}

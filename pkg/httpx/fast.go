package httpx

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"sharedworld.dev/pkg/logging"
	"sharedworld.dev/pkg/problem"
)

// A fast GET is a public read served ahead of Fiber's context, router and
// middleware chain: on a small document they were a fifth of the server's
// time. It keeps what the chain gives every request: the request id, the
// exact request metrics (same route label), the sampled access line, panic
// recovery; and it takes only requests the chain would pass untouched (GET
// or HEAD of the exact path, no query, no body). Anything else, and any
// request the handler declines, goes the ordinary way, so the route is
// registered on the app as well and its errors are rendered and logged there.
type fastRoutes struct {
	mu     sync.Mutex
	routes atomic.Pointer[map[string]fastRoute] // replaced whole, read without a lock

	red    *routeMetrics
	base   *slog.Logger
	sample int                       // log one successful read in this many (1 or less: all)
	reads  atomic.Uint64             // successful reads, for the sampling
	door   atomic.Pointer[frontDoor] // the app's, once served (Serve)
	// unused: the app's unused connections, once served without a front door
	unused atomic.Pointer[unusedConns]
	// frontDoor: Serve may put a front door before the app (Options.NoFrontDoor)
	frontDoor bool
	// draining: every answer closes its connection (Drain)
	draining atomic.Bool
}

// fastRoute is a document route (DocumentGET). Its document is kept in
// memory: the fast paths give current no request context, so no request
// deadline would bound a call to a database or a service.
type fastRoute struct {
	path    string           // the metric's route label, as Fiber's route path
	current func() *Document // nil: not there yet, the app's route answers
}

var fastApps sync.Map // *fiber.App → *fastRoutes

func (f *fastRoutes) add(path string, r fastRoute) {
	f.mu.Lock()
	defer f.mu.Unlock()
	next := map[string]fastRoute{}
	if cur := f.routes.Load(); cur != nil {
		for p, r := range *cur {
			next[p] = r
		}
	}
	next[path] = r
	f.routes.Store(&next)
}

// any reports whether a document route was added.
func (f *fastRoutes) any() bool {
	routes := f.routes.Load()
	return routes != nil && len(*routes) > 0
}

// lookup is the fast route of path (a lookup by a conversion does not
// allocate).
func (f *fastRoutes) lookup(path []byte) (fastRoute, bool) {
	routes := f.routes.Load()
	if routes == nil {
		return fastRoute{}, false
	}
	r, ok := (*routes)[string(path)]
	return r, ok
}

// done records a request answered ahead of the chain as the chain would:
// the exact request metrics, and the access line (sampled for successful
// reads, always for errors).
func (f *fastRoutes) done(method, route string, status int, id []byte, elapsed time.Duration) {
	f.red.observe(method, route, status, elapsed)
	if status < 400 && f.sample > 1 && f.reads.Add(1)%uint64(f.sample) != 0 {
		return
	}
	if !f.base.Enabled(context.Background(), slog.LevelInfo) {
		return
	}
	log := logging.FromContext(logging.WithRequest(context.Background(), f.base, string(id)))
	log.LogAttrs(context.Background(), slog.LevelInfo, "request",
		slog.String("method", method), slog.String("path", route),
		slog.Int("status", status), slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000))
}

// fastPath puts the fast routes of app in front of the server's handler.
func fastPath(app *fiber.App, red *routeMetrics, base *slog.Logger, sample int, frontDoor bool) {
	f := &fastRoutes{red: red, base: base, sample: sample, frontDoor: frontDoor}
	fastApps.Store(app, f)
	srv := app.Server()
	next := srv.Handler
	serve := func(ctx *fasthttp.RequestCtx) {
		if !(ctx.IsGet() || ctx.IsHead()) || len(ctx.URI().QueryString()) != 0 || len(ctx.Request.Body()) != 0 {
			next(ctx)
			return
		}
		fr, ok := f.lookup(ctx.Path())
		if !ok {
			next(ctx)
			return
		}
		start := time.Now()
		// The id stays bytes (the request's own, or drawn on the stack):
		// a string is made only for a log line.
		var drawn [16]byte
		id := ctx.Request.Header.Peek(HeaderRequestID)
		if len(id) == 0 || len(id) > 64 {
			drawRequestID(&drawn)
			id = drawn[:]
		}
		if !serveFast(ctx, fr.current, base, id) {
			next(ctx)
			return
		}
		method := fiber.MethodGet
		if ctx.IsHead() {
			method = fiber.MethodHead
		}
		f.done(method, fr.path, ctx.Response.StatusCode(), id, time.Since(start))
	}
	srv.Handler = func(ctx *fasthttp.RequestCtx) {
		serve(ctx)
		// After the handler, so that a request in flight when the drain
		// began closes too; the response (a stream's included) is written
		// after this returns.
		if f.draining.Load() {
			ctx.SetConnectionClose()
		}
	}
}

// serveFast answers with the current document and the request id, or
// returns false, having written nothing, when there is none yet; a panic
// becomes INTERNAL_ERROR as recoverPanics makes it.
func serveFast(ctx *fasthttp.RequestCtx, current func() *Document, base *slog.Logger, id []byte) (handled bool) {
	defer func() {
		if r := recover(); r != nil {
			base.Error("panic", slog.String("request_id", string(id)), slog.String("panic", fmt.Sprint(r)), slog.String("stack", string(debug.Stack())))
			writeRaw(ctx, &problem.Error{Kind: problem.KindInternal, Message: "Internal server error.", Hint: "Retry later; if it persists, file a ticket with the X-Request-Id header value."}, "")
			ctx.Response.Header.SetCanonical(headerRequestID, id)
			handled = true
		}
	}()
	d := current()
	if d == nil {
		return false
	}
	ctx.Response.Header.SetCanonical(headerRequestID, id)
	ServeDocument(ctx, d)
	return true
}

var headerRequestID = []byte(HeaderRequestID) // fasthttp's canonical form already

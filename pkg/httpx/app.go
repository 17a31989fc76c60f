package httpx

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"runtime/debug"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"sharedworld.dev/pkg/logging"
	"sharedworld.dev/pkg/problem"
)

// DefaultBodyLimit is the general request body limit (CONTRACT §1).
const DefaultBodyLimit = 1 << 20

// HeaderRequestID carries the request id in and out.
const HeaderRequestID = "X-Request-Id"

// Options configures an app.
type Options struct {
	// Service labels metrics and logs ("identity", "world" for the runner).
	Service string
	Logger  *slog.Logger
	// BodyLimits maps "METHOD /path" to a larger body limit for that route;
	// every other route gets DefaultBodyLimit.
	BodyLimits map[string]int
	// AccessLogSample logs one in n successful GET and HEAD requests (the
	// hot public reads: bulletin, feed, lists); 0 or 1 logs every one.
	// Writes and every 4xx and 5xx are always logged; metrics count every
	// request whatever the sample.
	AccessLogSample int
	// ReadTimeout bounds reading one request (30 s when zero).
	ReadTimeout time.Duration
	// Deadline bounds each request's context, so every database operation,
	// lock wait and call to another service made with it (DefaultDeadline
	// when zero). A database that hangs instead of refusing then costs a
	// request this long and a 503 with Retry-After, not the driver's 30 s
	// socket timeout.
	Deadline time.Duration
	// WritesInFlight bounds the write requests (not GET or HEAD) the app
	// handles at once, and WriteWait how long after its arrival a write may
	// wait for one of them before it is refused with 503 and Retry-After
	// (Admission). Zero WritesInFlight admits every write.
	WritesInFlight int
	WriteWait      time.Duration
	// Unmetered leaves the app's requests out of the RED metrics: an admin
	// port's probes and scrapes would otherwise show up as a service of
	// their own, with a steady rate that dilutes nothing and alerts on
	// nothing, beside the real ones in every dashboard that sums by service.
	Unmetered bool
	// NoFrontDoor serves every connection with the full server, even on an
	// app with document routes (WORLD_FRONT_DOOR=off): the document routes
	// still skip Fiber's chain, a connection is only no longer read by the
	// front door first (see Serve).
	NoFrontDoor bool
}

// DefaultDeadline is the request deadline when Options leave it zero: far
// above any healthy request (milliseconds), low enough that an agent facing
// a hung database hears back while its own timeout still waits.
const DefaultDeadline = 5 * time.Second

// NewApp builds a Fiber app with the contract's error model, request ids and
// logging, panic recovery, per-route body limits and request metrics.
// Register routes on it, then serve; unknown paths answer JSON 404 and wrong
// methods JSON 405 through the error handler.
func NewApp(o Options) *fiber.App {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	maxBody := DefaultBodyLimit
	for _, n := range o.BodyLimits {
		maxBody = max(maxBody, n)
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = 30 * time.Second
	}
	if o.Deadline <= 0 {
		o.Deadline = DefaultDeadline
	}
	keepDateCurrent()
	routes := &routeTable{}
	app := fiber.New(fiber.Config{
		AppName:      "sharedworld-" + o.Service,
		ErrorHandler: withAllow(routes),
		// Strings from the request (method, params, headers) are copies, not
		// views of fasthttp's reused buffers: metric labels, log attributes,
		// cache keys and goroutines may keep them past the request.
		Immutable:             true,
		BodyLimit:             maxBody + 64<<10,
		DisableStartupMessage: true,
		ReadTimeout:           o.ReadTimeout,
		WriteTimeout:          30 * time.Second,
		IdleTimeout:           120 * time.Second,
		ReadBufferSize:        16 << 10,
		// A bulletin document is tens of KiB: one write syscall, not several.
		WriteBufferSize: 64 << 10,
	})
	var red *routeMetrics
	if !o.Unmetered {
		red = newRouteMetrics(o.Service)
	}
	fastPath(app, red, o.Logger, o.AccessLogSample, !o.NoFrontDoor) // after the server's own checks (guardServer)
	guardServer(app.Server())
	serverErrors(app.Server(), o.BodyLimits)
	app.Use(requestContext(red, o.Logger, o.AccessLogSample, o.Deadline), recoverPanics(), requestShape(routes, o.BodyLimits))
	if o.WritesInFlight > 0 {
		app.Use(NewAdmission(o.Service, o.WritesInFlight, o.WriteWait).handler())
	}
	return app
}

// withAllow is the error handler with the Allow header on every 405.
func withAllow(routes *routeTable) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		var fe *fiber.Error
		if errors.As(err, &fe) && fe.Code == fiber.StatusMethodNotAllowed {
			allow := routes.load(c.App()).allow(c.Path())
			c.Set(fiber.HeaderAllow, allow)
			err = methodNotAllowed(c.Method(), allow)
		}
		return ErrorHandler(c, err)
	}
}

// serverErrors answers the errors fasthttp meets before a request reaches
// Fiber: a body over the limit (named against its route's own limit, and
// the connection drains the rest of the upload: see lingeringListener) and
// a request line with headers over the read buffer.
func serverErrors(srv *fasthttp.Server, limits map[string]int) {
	next := srv.ErrorHandler
	srv.ErrorHandler = func(ctx *fasthttp.RequestCtx, err error) {
		var small *fasthttp.ErrSmallBuffer
		switch {
		case framingRefused(ctx):
			refuseFraming(ctx) // stopped by the one-byte limit guardServer set
		case errors.Is(err, fasthttp.ErrBodyTooLarge):
			markLinger(ctx)
			limit := routeLimit(limits, string(ctx.Method()), string(ctx.Path()))
			msg := "The request body is over this route's limit of " + strconv.Itoa(limit) + " bytes."
			if n := ctx.Request.Header.ContentLength(); n > 0 {
				msg = fmt.Sprintf("The request body is %d bytes; this route accepts at most %d.", n, limit)
			}
			writeRaw(ctx, problem.TooLarge(msg, tooLargeHint), "")
		case isTimeout(err):
			// Closed without an answer, as nginx does: a connection a client
			// opened and left unused (an HTTP client's spare) would otherwise
			// carry an unasked-for error that the client, sending its next
			// request on it at that moment, reads as that request's answer.
			_ = ctx.Conn().Close()
		case errors.As(err, &small):
			writeRaw(ctx, problem.Invalid("The request line and headers are over 16 KiB together.",
				"Shorten the URL (long query values) and the headers; a long certificate can travel as the embassy_certificate field of a JSON body instead of a header."), "")
		default:
			next(ctx, err)
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

const tooLargeHint = "Send a smaller body: 1 MiB in general, 2 MiB for storage/write, 8 MiB for continuity/backup."

func routeLimit(limits map[string]int, method, path string) int {
	if len(limits) == 0 || method == fiber.MethodGet {
		return DefaultBodyLimit // no key to build: the route limits are for writes
	}
	if n, ok := limits[method+" "+path]; ok {
		return n
	}
	return DefaultBodyLimit
}

// requestContext assigns the request id, puts a request logger and the
// request's deadline in the context, logs the request and records its
// metrics. The deadline ends with the handler: a stream that outlives it
// (the feed's Server-Sent Events) runs on its service's context.
func requestContext(red *routeMetrics, base *slog.Logger, sample int, deadline time.Duration) fiber.Handler {
	var reads atomic.Uint64
	return func(c *fiber.Ctx) error {
		start := arrival(c)
		id := c.Get(HeaderRequestID)
		if id == "" || len(id) > 64 {
			id = newRequestID()
		}
		c.Set(HeaderRequestID, id)
		ctx, cancel := context.WithDeadline(logging.WithRequest(c.UserContext(), base, id), start.Add(deadline))
		defer cancel()
		c.SetUserContext(ctx)

		err := c.Next()
		if err != nil {
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				_ = c.SendStatus(fiber.StatusInternalServerError)
			}
		}
		status := c.Response().StatusCode()
		method := c.Method()
		route := c.Route().Path
		if status == fiber.StatusNotFound && route == "/" {
			route = "unmatched"
		}
		elapsed := time.Since(start)
		red.observe(method, route, status, elapsed)
		if status < 400 && (method == fiber.MethodGet || method == fiber.MethodHead) && sample > 1 && reads.Add(1)%uint64(sample) != 0 {
			return nil
		}
		// The level is asked of the base logger: the request's own is built
		// (its request_id encoded) only for a line that is written.
		if !base.Enabled(c.UserContext(), slog.LevelInfo) {
			return nil
		}
		logging.FromContext(c.UserContext()).LogAttrs(c.UserContext(), slog.LevelInfo, "request",
			slog.String("method", method), slog.String("path", c.Path()),
			slog.Int("status", status), slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000))
		return nil
	}
}

// newRequestID draws 64 bits from the runtime's per-thread generator
// (seeded from the system's randomness): an id correlates log lines and is
// no secret, and reading the system's generator on every request cost more
// than the rest of the id.
func newRequestID() string {
	var b [16]byte
	drawRequestID(&b)
	return string(b[:])
}

func drawRequestID(b *[16]byte) {
	var raw [8]byte
	binary.BigEndian.PutUint64(raw[:], rand.Uint64())
	hex.Encode(b[:], raw[:])
}

// recoverPanics turns a panic into INTERNAL_ERROR, logging the stack server-side only.
func recoverPanics() fiber.Handler {
	return func(c *fiber.Ctx) (err error) {
		defer func() {
			if r := recover(); r != nil {
				logging.FromContext(c.UserContext()).Error("panic", slog.String("panic", fmt.Sprint(r)), slog.String("stack", string(debug.Stack())))
				err = &problem.Error{Kind: problem.KindInternal, Message: "Internal server error.", Hint: "Retry later; if it persists, file a ticket with the X-Request-Id header value."}
			}
		}()
		return c.Next()
	}
}

// requestShape refuses, before any handler, a path or query that is not
// UTF-8 text, a method a fixed path does not serve (even where a parameter
// route of that method would take the path as its parameter), and a body
// over its route's limit. The happy path allocates nothing but the limit
// lookup.
func requestShape(routes *routeTable, limits map[string]int) fiber.Handler {
	least := DefaultBodyLimit
	for _, n := range limits {
		least = min(least, n)
	}
	return func(c *fiber.Ctx) error {
		uri := c.Request().URI()
		if !validText(uri.PathOriginal()) || !validText(uri.QueryString()) {
			return badText(uri)
		}
		if allow, wrong := routes.load(c.App()).misrouted(c.Method(), c.Path()); wrong {
			c.Set(fiber.HeaderAllow, allow)
			return methodNotAllowed(c.Method(), allow)
		}
		if n := len(c.Request().Body()); n <= least {
			return c.Next() // within every route's limit: no lookup
		}
		limit := routeLimit(limits, c.Method(), c.Path())
		if len(c.Request().Body()) > limit {
			return problem.TooLarge(fmt.Sprintf("The request body is %d bytes; this route accepts at most %d.", len(c.Request().Body()), limit), tooLargeHint)
		}
		return c.Next()
	}
}

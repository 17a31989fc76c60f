package httpx

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"sharedworld.dev/pkg/metrics"
	"sharedworld.dev/pkg/problem"
)

// Admission bounds the writes a process works on at once. Past what the
// database can commit, more writes in flight only lengthen every write's
// wait (they queue on the database, holding connections and document
// locks), until clients give up on answers that come after seconds. A
// write beyond the bound waits for a slot only as long as its budget,
// counted from the request's arrival, allows, and is otherwise answered at
// once: 503 with Retry-After and nothing written. Reads are never held.
type Admission struct {
	slots   chan struct{}
	waiters chan struct{}
	wait    time.Duration
	service string
}

// DefaultWritesInFlight and DefaultWriteWait are the bounds when Options
// leave them zero: some tens of writes keep two cores and the embedded
// database busy (a write takes milliseconds), and a quarter second of
// queueing is what a write may add to its own time before a refusal,
// which costs the client one retry, is the better answer.
const (
	DefaultWritesInFlight = 32
	DefaultWriteWait      = 250 * time.Millisecond
)

// NewAdmission admits inFlight writes at once; a write that finds them all
// busy waits at most wait from its arrival, and no more than four times
// inFlight writes wait at all.
func NewAdmission(service string, inFlight int, wait time.Duration) *Admission {
	if inFlight <= 0 {
		inFlight = DefaultWritesInFlight
	}
	if wait <= 0 {
		wait = DefaultWriteWait
	}
	return &Admission{slots: make(chan struct{}, inFlight), waiters: make(chan struct{}, 4*inFlight), wait: wait, service: service}
}

var (
	writesInFlight = metrics.Register(prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sharedworld_http_writes_in_flight",
		Help: "Write requests (not GET or HEAD) being handled, by service; bounded by WORLD_WRITES_IN_FLIGHT.",
	}, []string{"service"}))
	writesRefused = metrics.Register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sharedworld_http_writes_refused_total",
		Help: "Write requests answered 503 at once because the process was at its bound of writes in flight, by service and reason (queue_full, wait_budget).",
	}, []string{"service", "reason"}))
	writeAdmissionWait = metrics.Register(prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "sharedworld_http_write_admission_wait_seconds",
		Help:    "Time an admitted write request waited for a slot, by service.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1},
	}, []string{"service"}))
)

// refusal is the answer to a write refused at the door.
var refusal = func() *problem.Error {
	e := problem.Unavailable("The world is taking as many writes as it can commit right now; this one was not started.",
		"Nothing was written: send the same request again after Retry-After seconds. Reads are served meanwhile.")
	e.RetryAfter = time.Second
	return e
}()

// overloaded answers a refused write: the error handler's body and
// Retry-After, without its error log line (a refusal is the door working,
// and under overload one line per refusal would cost what the door saves).
func overloaded(c *fiber.Ctx) error {
	status, code := StatusOf(refusal)
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(int(refusal.RetryAfter/time.Second)))
	return writeJSON(c, status, ErrorBody{OK: false, Error: code, Message: refusal.Message, Hint: refusal.Hint})
}

// isWriteMethod: what the door counts. Reads (GET, HEAD) and the live
// streams they open pass untouched.
func isWriteMethod(m string) bool {
	return m != fiber.MethodGet && m != fiber.MethodHead && m != fiber.MethodOptions
}

// handler is the middleware (after requestContext, whose deadline and
// metrics then cover a refusal too).
func (a *Admission) handler() fiber.Handler {
	inFlight := writesInFlight.WithLabelValues(a.service)
	waited := writeAdmissionWait.WithLabelValues(a.service)
	full := writesRefused.WithLabelValues(a.service, "queue_full")
	late := writesRefused.WithLabelValues(a.service, "wait_budget")
	return func(c *fiber.Ctx) error {
		if !isWriteMethod(c.Method()) {
			return c.Next()
		}
		select {
		case a.slots <- struct{}{}:
		default:
			arrived := arrival(c)
			budget := time.Until(arrived.Add(a.wait))
			if budget <= 0 {
				late.Inc()
				return overloaded(c)
			}
			select {
			case a.waiters <- struct{}{}:
			default:
				full.Inc()
				return overloaded(c)
			}
			t := time.NewTimer(budget)
			select {
			case a.slots <- struct{}{}:
				t.Stop()
				<-a.waiters
				waited.Observe(time.Since(arrived).Seconds())
			case <-t.C:
				<-a.waiters
				late.Inc()
				return overloaded(c)
			}
		}
		inFlight.Inc()
		defer func() {
			inFlight.Dec()
			<-a.slots
		}()
		return c.Next()
	}
}

// arrival is when the server began on the request (after reading its
// headers): the request's deadline and the write's wait budget count from
// there, so time spent waiting for a goroutine or a slot is not forgiven.
func arrival(c *fiber.Ctx) time.Time {
	if t := c.Context().Time(); !t.IsZero() {
		return t
	}
	return time.Now()
}

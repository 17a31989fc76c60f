// Package logging builds the JSON slog logger every service uses and carries
// the per-request logger (with its request id) through the context.
package logging

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
)

type ctxKey struct{}

// New returns a JSON logger writing to w (stdout when nil) at the given level
// ("debug", "info", "warn", "error"), tagged with the service name.
func New(w io.Writer, service, level string) *slog.Logger {
	if w == nil {
		w = os.Stdout
	}
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: ParseLevel(level)})
	return slog.New(h).With("service", service)
}

// ParseLevel maps a level name to a slog level, defaulting to info.
func ParseLevel(s string) slog.Level {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug
	case "warn", "warning":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	default:
		return slog.LevelInfo
	}
}

// WithLogger stores l in ctx.
func WithLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// requestLogger builds the request's logger on first use: most requests
// never log beyond the access line, and slog's With encodes the attribute
// eagerly, which cost a tenth of a cached bulletin GET. It is also the
// request's context (the parent's values and cancellation, itself under
// ctxKey): one allocation per request instead of two.
type requestLogger struct {
	context.Context
	base  *slog.Logger
	id    string
	built atomic.Pointer[slog.Logger]
}

func (r *requestLogger) Value(key any) any {
	if key == (ctxKey{}) {
		return r
	}
	return r.Context.Value(key)
}

func (r *requestLogger) logger() *slog.Logger {
	if l := r.built.Load(); l != nil {
		return l
	}
	l := r.base.With(slog.String("request_id", r.id))
	r.built.Store(l)
	return l
}

// WithRequest stores a logger for the request: base with request_id=id,
// built only when something logs.
func WithRequest(ctx context.Context, base *slog.Logger, id string) context.Context {
	return &requestLogger{Context: ctx, base: base, id: id}
}

// FromContext returns the request's logger, or the default logger outside a request.
func FromContext(ctx context.Context) *slog.Logger {
	if ctx != nil {
		switch l := ctx.Value(ctxKey{}).(type) {
		case *slog.Logger:
			return l
		case *requestLogger:
			return l.logger()
		}
	}
	return slog.Default()
}

package world

import (
	"context"
	"log/slog"
)

// levelFilter drops records below a level (FerretDB is chatty at INFO/WARN).
type levelFilter struct {
	slog.Handler
	min slog.Level
}

func (f levelFilter) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= f.min && f.Handler.Enabled(ctx, l)
}

func (f levelFilter) WithAttrs(as []slog.Attr) slog.Handler {
	return levelFilter{f.Handler.WithAttrs(as), f.min}
}

func (f levelFilter) WithGroup(name string) slog.Handler {
	return levelFilter{f.Handler.WithGroup(name), f.min}
}

func filterLevel(l *slog.Logger, min slog.Level) *slog.Logger {
	return slog.New(levelFilter{l.Handler(), min})
}

package http

import (
	"time"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/services/messaging/internal/domain"
)

// cursor is the position a page continues after, in milliseconds so that
// it survives JSON exactly.
type cursor struct {
	AtMs int64  `json:"t"`
	ID   string `json:"id"`
}

func encodeCursor(p *domain.Position) *string {
	if p == nil {
		return nil
	}
	s := httpx.EncodeCursor(cursor{AtMs: p.At.UnixMilli(), ID: p.ID})
	return &s
}

// decodeCursor reads a cursor of a list whose ids start with prefix;
// anything else is 400.
func decodeCursor(raw, prefix string) (*domain.Position, error) {
	if raw == "" {
		return nil, nil
	}
	var c cursor
	if err := httpx.DecodeCursor(raw, &c); err != nil {
		return nil, err
	}
	if !domain.ValidID(prefix, c.ID) || c.AtMs <= 0 {
		return nil, httpx.UnknownCursor()
	}
	return &domain.Position{At: time.UnixMilli(c.AtMs).UTC(), ID: c.ID}, nil
}

// pageArgs reads limit and cursor.
func pageArgs(limitRaw, cursorRaw, prefix string) (int, *domain.Position, error) {
	limit, err := httpx.ParseLimit(limitRaw, httpx.DefaultLimit)
	if err != nil {
		return 0, nil, err
	}
	after, err := decodeCursor(cursorRaw, prefix)
	return limit, after, err
}

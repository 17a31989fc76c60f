package http

import (
	"time"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/services/tickets/internal/domain"
)

// cursor is the position a page continues after, in milliseconds so that
// it survives JSON exactly.
type cursor struct {
	CreatedAtMs int64  `json:"t"`
	ID          string `json:"id"`
}

func encodeCursor(p domain.Position) string {
	return httpx.EncodeCursor(cursor{CreatedAtMs: p.CreatedAt.UnixMilli(), ID: string(p.ID)})
}

// decodeCursor reads a cursor made by encodeCursor; anything else is 400.
func decodeCursor(raw string) (*domain.Position, error) {
	if raw == "" {
		return nil, nil
	}
	var c cursor
	if err := httpx.DecodeCursor(raw, &c); err != nil {
		return nil, err
	}
	id, err := domain.ParseTicketID(c.ID)
	if err != nil || c.CreatedAtMs <= 0 {
		return nil, httpx.UnknownCursor()
	}
	return &domain.Position{CreatedAt: time.UnixMilli(c.CreatedAtMs).UTC(), ID: id}, nil
}

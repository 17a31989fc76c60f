package http

import (
	"time"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/governance/internal/domain"
)

// cursor is the position a page continues after, in milliseconds.
type cursor struct {
	CreatedAtMs int64  `json:"t"`
	ID          string `json:"id"`
}

func encodeCursor(p domain.Position) string {
	return httpx.EncodeCursor(cursor{CreatedAtMs: p.CreatedAt.UnixMilli(), ID: p.ID})
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
	if _, err := domain.ParseProposalID(c.ID); err != nil || c.CreatedAtMs <= 0 {
		return nil, httpx.UnknownCursor()
	}
	return &domain.Position{CreatedAt: time.UnixMilli(c.CreatedAtMs).UTC(), ID: c.ID}, nil
}

// parse reads an enum query value; an unknown one is 400, not an empty list.
func parse[T ~string](field, got string, allowed []T) (T, error) {
	for _, a := range allowed {
		if string(a) == got {
			return a, nil
		}
	}
	names := ""
	for i, a := range allowed {
		if i > 0 {
			names += ", "
		}
		names += string(a)
	}
	return "", problem.Invalidf("Send "+field+" as one of: "+names+".", "%q is not a valid %s.", got, field)
}

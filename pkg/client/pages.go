package client

import (
	"context"
	"iter"
	"net/url"
)

// pages iterates over a cursor list: fetch reads the page at a cursor and
// returns its items and the next cursor ("" at the end).
func pages[T any](ctx context.Context, first PageOptions, fetch func(ctx context.Context, p PageOptions) ([]T, string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		p := first
		for {
			items, next, err := fetch(ctx, p)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if next == "" || next == p.Cursor {
				return
			}
			p.Cursor = next
		}
	}
}

// pageQuery adds limit and cursor to q.
func pageQuery(q url.Values, p PageOptions) url.Values {
	if q == nil {
		q = url.Values{}
	}
	setInt(q, "limit", p.Limit)
	set(q, "cursor", p.Cursor)
	return q
}

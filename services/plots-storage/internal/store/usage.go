package store

import (
	"context"
	"errors"
	"fmt"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// usageDoc is a tenancy's usage counters in one document, keyed by the
// tenancy (a plot claimed anew starts from zero without anything reset).
type usageDoc struct {
	Tenancy string `bson:"_id"`
	Bytes   int64  `bson:"bytes_used"`
	Files   int64  `bson:"files_used"`
}

func (d usageDoc) usage() domain.Usage { return domain.Usage{Bytes: d.Bytes, Files: d.Files} }

// Usage keeps each tenancy's usage counters.
type Usage struct {
	docs *docs[usageDoc]
}

// NewUsage uses db's "plot_usage" collection.
func NewUsage(db *mongox.DB) *Usage {
	return &Usage{docs: mongox.NewDocs[usageDoc, eventOf](db, "plot_usage", nil)}
}

// Change runs fn on the tenancy's usage (zero when never counted) and
// stores the result; fn's error (a refused reservation) leaves it as it was.
func (s *Usage) Change(ctx context.Context, tenancy string, fn func(*domain.Usage) error) (domain.Usage, error) {
	to := func(u domain.Usage) usageDoc { return usageDoc{Tenancy: tenancy, Bytes: u.Bytes, Files: u.Files} }
	return change(ctx, s.docs, tenancy, func() domain.Usage { return domain.Usage{} }, to, usageDoc.usage,
		func(u *domain.Usage) ([]domain.Event, error) { return nil, fn(u) })
}

// Current returns a tenancy's usage.
func (s *Usage) Current(ctx context.Context, tenancy string) (domain.Usage, error) {
	d, err := s.docs.Get(ctx, tenancy)
	if errors.Is(err, mongox.ErrNotFound) {
		return domain.Usage{}, nil
	}
	if err != nil {
		return domain.Usage{}, fmt.Errorf("read usage: %w", err)
	}
	return d.usage(), nil
}

// DeleteTenancy removes an ended tenancy's counters.
func (s *Usage) DeleteTenancy(ctx context.Context, tenancy string) error {
	if err := s.docs.Delete(ctx, tenancy, nil); err != nil && !errors.Is(err, mongox.ErrNotFound) {
		return err
	}
	return nil
}

package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// usageDoc is an account's usage counters in one document, keyed by the
// tenancy (a plot claimed anew starts from zero without anything reset)
// or by a citizen's garden share (app.ShareAccount),
// with the holds of writes not known to have landed: the counters and the
// holds change together, in one document's write.
type usageDoc struct {
	Tenancy string    `bson:"_id"`
	Bytes   int64     `bson:"bytes_used"`
	Files   int64     `bson:"files_used"`
	Holds   []holdDoc `bson:"holds"` // all of them, none too: an update sets every field
	Stamped time.Time `bson:"stamped_at"`
	// A garden share's grants (domain/grant.go): the room drawn from the
	// garden and the number of the last grant.
	GrantedBytes int64 `bson:"granted_bytes"`
	GrantedFiles int64 `bson:"granted_files"`
	GrantSeq     int64 `bson:"grant_seq"`
	// Version is mongox.Docs's, read for the in-memory copy's answers to a
	// change's read (MirroredUsage); Docs sets it on every write.
	Version int64 `bson:"version"`
}

type holdDoc struct {
	ID     string `bson:"id"`
	PlotID string `bson:"plot_id"`
	Path   string `bson:"path"`
	Bytes  int64  `bson:"bytes"`
	Files  int64  `bson:"files"`
	// FreesBytes and FreesFiles are given back once the write landed.
	FreesBytes int64     `bson:"frees_bytes"`
	FreesFiles int64     `bson:"frees_files"`
	Until      time.Time `bson:"until"`
	Grant      int64     `bson:"grant"`
}

func (d usageDoc) usage() domain.Usage { return domain.Usage{Bytes: d.Bytes, Files: d.Files} }

func (d usageDoc) account() domain.Account {
	a := domain.Account{Usage: d.usage(), Stamped: d.Stamped,
		Granted: domain.Usage{Bytes: d.GrantedBytes, Files: d.GrantedFiles}, GrantSeq: d.GrantSeq}
	for _, h := range d.Holds {
		a.Holds = append(a.Holds, domain.Hold{ID: h.ID, PlotID: h.PlotID, Path: h.Path,
			Change: domain.Change{Bytes: h.Bytes, Files: h.Files},
			Frees:  domain.Change{Bytes: h.FreesBytes, Files: h.FreesFiles}, Until: h.Until, Grant: h.Grant})
	}
	return a
}

func usageDocOf(tenancy string, a domain.Account) usageDoc {
	d := usageDoc{Tenancy: tenancy, Bytes: a.Bytes, Files: a.Files, Stamped: a.Stamped,
		GrantedBytes: a.Granted.Bytes, GrantedFiles: a.Granted.Files, GrantSeq: a.GrantSeq}
	for _, h := range a.Holds {
		d.Holds = append(d.Holds, holdDoc{ID: h.ID, PlotID: h.PlotID, Path: h.Path,
			Bytes: h.Change.Bytes, Files: h.Change.Files, FreesBytes: h.Frees.Bytes, FreesFiles: h.Frees.Files,
			Until: h.Until, Grant: h.Grant})
	}
	return d
}

// Usage is the adapter of each tenancy's usage counters on MongoDB, where
// other replicas write too.
type Usage struct {
	docs *docs[usageDoc]
}

// NewUsage uses db's "plot_usage" collection.
func NewUsage(db *mongox.DB) *Usage {
	return &Usage{docs: mongox.NewDocs[usageDoc, eventOf](db, "plot_usage", nil)}
}

// Change runs fn on the tenancy's usage (zero when never counted) and
// stores the result; fn's error (a refused reservation) leaves it as it
// was. Its holds stay as they are.
func (s *Usage) Change(ctx context.Context, tenancy string, fn func(*domain.Usage) error) (domain.Usage, error) {
	a, err := s.Account(ctx, tenancy, func(a *domain.Account) error { return fn(&a.Usage) })
	return a.Usage, err
}

// Account runs fn on the tenancy's usage with its holds and stores the
// result; fn's error leaves it as it was.
func (s *Usage) Account(ctx context.Context, tenancy string, fn func(*domain.Account) error) (domain.Account, error) {
	to := func(a domain.Account) usageDoc { return usageDocOf(tenancy, a) }
	return change(ctx, s.docs, tenancy, func() domain.Account { return domain.Account{} }, to, usageDoc.account,
		func(a *domain.Account) ([]domain.Event, error) { return nil, fn(a) })
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

// Read returns an account as stored (zero when never counted).
func (s *Usage) Read(ctx context.Context, tenancy string) (domain.Account, error) {
	d, err := s.docs.Get(ctx, tenancy)
	if errors.Is(err, mongox.ErrNotFound) {
		return domain.Account{}, nil
	}
	if err != nil {
		return domain.Account{}, fmt.Errorf("read usage: %w", err)
	}
	return d.account(), nil
}

// Holding returns the tenancies that record holds. It reads every
// tenancy's usage (one small document each), so it serves the sweep at
// start, not a request.
func (s *Usage) Holding(ctx context.Context) ([]string, error) {
	var out []string
	docs, err := mongox.FindAll[usageDoc](ctx, s.docs.Collection(), bson.M{})
	if err != nil {
		return nil, fmt.Errorf("find usage with holds: %w", err)
	}
	for _, d := range docs {
		if len(d.Holds) > 0 {
			out = append(out, d.Tenancy)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Outlived is false for every hold: another replica may be writing it, and
// its write may land until the hold lapses.
func (s *Usage) Outlived(domain.Hold) bool { return false }

// DeleteTenancy removes an ended tenancy's counters.
func (s *Usage) DeleteTenancy(ctx context.Context, tenancy string) error {
	if err := s.docs.Delete(ctx, tenancy, nil); err != nil && !errors.Is(err, mongox.ErrNotFound) {
		return err
	}
	return nil
}

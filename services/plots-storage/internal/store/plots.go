package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// plotDoc is a cell's document. It is created by the cell's first claim and
// kept from then on, so that every event of the cell — claimed, released,
// claimed again — sits in one outbox in order, under one rising version.
type plotDoc struct {
	ID      string `bson:"_id"`
	X       int    `bson:"x"`
	Y       int    `bson:"y"`
	Claimed bool   `bson:"claimed"`
	// OwnerKey carries the unique index that makes "one plot per citizen" a
	// database fact: the owner's agent id while claimed, freeKey when free.
	OwnerKey    string    `bson:"owner_key"`
	Owner       string    `bson:"owner_agent_id"`
	DisplayName string    `bson:"display_name"`
	ClaimedAt   time.Time `bson:"claimed_at"`
	Tenancy     string    `bson:"tenancy"`
	Version     uint64    `bson:"version"`
}

// freeKey is the owner_key of a free cell: unique, as the index demands.
func freeKey(plotID string) string { return "free:" + plotID }

func (d plotDoc) plot() domain.Plot {
	return domain.Plot{ID: d.ID, Cell: domain.Coordinates{X: d.X, Y: d.Y}, Claimed: d.Claimed, Owner: d.Owner,
		DisplayName: d.DisplayName, ClaimedAt: d.ClaimedAt, Tenancy: d.Tenancy, Version: d.Version}
}

func plotDocOf(p domain.Plot) plotDoc {
	key := freeKey(p.ID)
	if p.Claimed {
		key = p.Owner
	}
	return plotDoc{ID: p.ID, X: p.Cell.X, Y: p.Cell.Y, Claimed: p.Claimed, OwnerKey: key, Owner: p.Owner,
		DisplayName: p.DisplayName, ClaimedAt: p.ClaimedAt, Tenancy: p.Tenancy, Version: p.Version}
}

// Plots is the plots adapter on MongoDB: every read is a query its
// indexes serve.
type Plots struct {
	docs *docs[plotDoc]
}

// NewPlots uses db's "plots" collection and tells notify about new events.
func NewPlots(db *mongox.DB, notify mongox.Notifier) *Plots {
	return &Plots{docs: mongox.NewDocs[plotDoc, eventOf](db, "plots", notify)}
}

// OutboxCollection carries plot events (for the relay).
func (s *Plots) OutboxCollection() *mongo.Collection { return s.docs.Collection() }

// EnsureIndexes creates the one-plot-per-citizen index and the grid index.
func (s *Plots) EnsureIndexes(ctx context.Context) error {
	return mongox.EnsureIndexes(ctx, s.docs.Collection(),
		mongox.Index("owner_key_unique", true, bson.E{Key: "owner_key", Value: 1}),
		mongox.Index("claimed_grid", false, bson.E{Key: "claimed", Value: 1}, bson.E{Key: "x", Value: 1}, bson.E{Key: "y", Value: 1}),
	)
}

// Change runs fn on the cell's record (a free one when the cell was never
// claimed) and stores the result with fn's events. The cell's first claim
// is an insert its _id admits once; domain.ErrHoldsAPlot when the result
// would give its owner a second plot.
func (s *Plots) Change(ctx context.Context, cell domain.Coordinates, fn func(*domain.Plot) ([]domain.Event, error)) (domain.Plot, error) {
	p, err := change(ctx, s.docs, cell.PlotID(), func() domain.Plot { return domain.FreeCell(cell) }, plotDocOf, plotDoc.plot, fn)
	if errors.Is(err, mongox.ErrDuplicate) {
		return p, domain.ErrHoldsAPlot
	}
	return p, err
}

// Get returns the claimed plot with this id (domain.ErrNotFound when free).
func (s *Plots) Get(ctx context.Context, plotID string) (domain.Plot, error) {
	d, err := s.docs.Get(ctx, plotID)
	if err != nil {
		return domain.Plot{}, outcome(err)
	}
	if !d.Claimed {
		return domain.Plot{}, domain.ErrNotFound
	}
	return d.plot(), nil
}

// OwnedBy returns the plot agentID holds.
func (s *Plots) OwnedBy(ctx context.Context, agentID string) (domain.Plot, error) {
	var d plotDoc
	err := s.docs.Collection().FindOne(ctx, bson.M{"owner_key": agentID}, options.FindOne().SetProjection(noOutbox)).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return domain.Plot{}, domain.ErrNotFound
	}
	if err != nil {
		return domain.Plot{}, fmt.Errorf("read plot of %s: %w", agentID, err)
	}
	return d.plot(), nil
}

// ClaimedIn lists the claimed cells inside a square (nearest-available search).
func (s *Plots) ClaimedIn(ctx context.Context, sq domain.Square) ([]domain.Coordinates, error) {
	docs, err := mongox.FindAll[plotDoc](ctx, s.docs.Collection(), bson.M{"claimed": true,
		"x": bson.M{"$gte": sq.MinX, "$lte": sq.MaxX}, "y": bson.M{"$gte": sq.MinY, "$lte": sq.MaxY}},
		options.Find().SetProjection(bson.M{"x": 1, "y": 1}))
	if err != nil {
		return nil, fmt.Errorf("read claimed cells: %w", err)
	}
	out := make([]domain.Coordinates, len(docs))
	for i, d := range docs {
		out[i] = domain.Coordinates{X: d.X, Y: d.Y}
	}
	return out, nil
}

// NearestFree searches growing squares of claimed cells around near
// (domain.NearestAvailable), which the "claimed_grid" index serves.
func (s *Plots) NearestFree(ctx context.Context, near domain.Coordinates, limit int) ([]domain.Coordinates, error) {
	return domain.NearestAvailable(ctx, near, limit, s.ClaimedIn)
}

// CountClaimed counts claimed cells, the commons included.
func (s *Plots) CountClaimed(ctx context.Context) (int64, error) {
	n, err := s.docs.Collection().CountDocuments(ctx, bson.M{"claimed": true})
	if err != nil {
		return 0, fmt.Errorf("count claimed plots: %w", err)
	}
	return n, nil
}

// ListClaimed returns up to limit claimed plots after the cell `after`
// (nil: from the start), by x then y.
func (s *Plots) ListClaimed(ctx context.Context, after *domain.Coordinates, limit int) ([]domain.Plot, error) {
	filter := bson.M{"claimed": true}
	if after != nil {
		filter["$or"] = bson.A{
			bson.M{"x": bson.M{"$gt": after.X}},
			bson.M{"x": after.X, "y": bson.M{"$gt": after.Y}},
		}
	}
	docs, err := mongox.FindAll[plotDoc](ctx, s.docs.Collection(), filter, options.Find().SetProjection(noOutbox).
		SetSort(bson.D{{Key: "x", Value: 1}, {Key: "y", Value: 1}}).SetLimit(int64(limit)))
	if err != nil {
		return nil, fmt.Errorf("list plots: %w", err)
	}
	out := make([]domain.Plot, len(docs))
	for i, d := range docs {
		out[i] = d.plot()
	}
	return out, nil
}

// Tenancies returns every live tenancy (to find what abandoned plots left).
func (s *Plots) Tenancies(ctx context.Context) (map[string]bool, error) {
	docs, err := mongox.FindAll[plotDoc](ctx, s.docs.Collection(), bson.M{"claimed": true}, options.Find().SetProjection(bson.M{"tenancy": 1}))
	if err != nil {
		return nil, fmt.Errorf("list tenancies: %w", err)
	}
	out := make(map[string]bool, len(docs))
	for _, d := range docs {
		out[d.Tenancy] = true
	}
	return out, nil
}

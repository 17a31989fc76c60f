package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// Plot is a cell's document. It is created by the cell's first claim and
// kept from then on, so that every event of the cell — claimed, released,
// claimed again — sits in one outbox in order, under one rising version.
type Plot struct {
	ID      string `bson:"_id"`
	X       int    `bson:"x"`
	Y       int    `bson:"y"`
	Claimed bool   `bson:"claimed"`
	// OwnerKey carries the unique index that makes "one plot per citizen" a
	// database fact: the owner's agent id while claimed, FreeKey when free.
	OwnerKey    string    `bson:"owner_key"`
	Owner       string    `bson:"owner_agent_id"`
	DisplayName string    `bson:"display_name"`
	ClaimedAt   time.Time `bson:"claimed_at"`
	// Tenancy names this holding of the cell; files, usage and permissions
	// hang off it, so the next holder of the cell starts afresh.
	Tenancy string `bson:"tenancy"`
	Version uint64 `bson:"version"`
}

// Cell is the plot's cell.
func (p Plot) Cell() domain.Coordinates { return domain.Coordinates{X: p.X, Y: p.Y} }

// FreeKey is the owner_key of a free cell: unique, as the index demands.
func FreeKey(plotID string) string { return "free:" + plotID }

// Plots stores plots.
type Plots struct {
	coll   *mongo.Collection
	notify events.Notifier
	db     *mongox.DB
}

// NewPlots uses db's "plots" collection; locks are the process's document
// locks, shared with the relay.
func NewPlots(db *mongox.DB, notify events.Notifier) *Plots {
	return &Plots{coll: db.Collection("plots"), notify: notify, db: db}
}

// OutboxCollection carries plot events (for the relay).
func (s *Plots) OutboxCollection() *mongo.Collection { return s.coll }

// EnsureIndexes creates the one-plot-per-citizen index and the grid index.
func (s *Plots) EnsureIndexes(ctx context.Context) error {
	return mongox.EnsureIndexes(ctx, s.coll,
		mongox.Index("owner_key_unique", true, bson.E{Key: "owner_key", Value: 1}),
		mongox.Index("claimed_grid", false, bson.E{Key: "claimed", Value: 1}, bson.E{Key: "x", Value: 1}, bson.E{Key: "y", Value: 1}),
	)
}

// Lock takes a cell's lock for a read-modify-write of its document.
func (s *Plots) Lock(plotID string) (unlock func()) { return s.db.Lock(s.coll, plotID) }

// Cell returns the document of a cell, claimed or free (ErrNotFound when
// the cell was never claimed).
func (s *Plots) Cell(ctx context.Context, plotID string) (Plot, error) {
	var p Plot
	err := s.coll.FindOne(ctx, bson.M{"_id": plotID}, options.FindOne().SetProjection(noOutbox)).Decode(&p)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return p, ErrNotFound
	}
	if err != nil {
		return p, fmt.Errorf("read plot: %w", err)
	}
	return p, nil
}

// Get returns the claimed plot with this id.
func (s *Plots) Get(ctx context.Context, plotID string) (Plot, error) {
	p, err := s.Cell(ctx, plotID)
	if err == nil && !p.Claimed {
		return Plot{}, ErrNotFound
	}
	return p, err
}

// OwnedBy returns the plot agentID holds.
func (s *Plots) OwnedBy(ctx context.Context, agentID string) (Plot, error) {
	var p Plot
	err := s.coll.FindOne(ctx, bson.M{"owner_key": agentID}, options.FindOne().SetProjection(noOutbox)).Decode(&p)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return p, ErrNotFound
	}
	if err != nil {
		return p, fmt.Errorf("read plot of %s: %w", agentID, err)
	}
	return p, nil
}

func (p Plot) fields() bson.M {
	return bson.M{"x": p.X, "y": p.Y, "claimed": p.Claimed, "owner_key": p.OwnerKey, "owner_agent_id": p.Owner,
		"display_name": p.DisplayName, "claimed_at": p.ClaimedAt, "tenancy": p.Tenancy, "version": p.Version}
}

// Claim writes the claimed plot p over prev (as read under the cell's lock;
// ErrNotFound-zero when the cell has no document yet), with its event. The
// first claim of a cell is an insert, decided by the _id; a later one an
// update guarded by the free state and version read. ErrDuplicate: the
// cell or the citizen's one plot is taken; ErrVersionClash: the cell
// changed since it was read (another replica).
func (s *Plots) Claim(ctx context.Context, prev, p Plot, ev events.Event) error {
	doc := p.fields()
	var err error
	if prev.Version == 0 {
		doc["_id"] = p.ID
		doc[events.OutboxField] = []events.Event{ev}
		_, err = s.coll.InsertOne(ctx, doc)
	} else {
		var res *mongo.UpdateResult
		res, err = s.coll.UpdateOne(ctx, s.db.Guarded(p.ID, bson.M{"claimed": false, "version": prev.Version}),
			events.WithOutbox(bson.M{"$set": doc}, ev))
		if err == nil && res.MatchedCount == 0 {
			return ErrVersionClash
		}
	}
	if mongo.IsDuplicateKeyError(err) {
		return ErrDuplicate
	}
	if err != nil {
		return fmt.Errorf("claim %s: %w", p.ID, err)
	}
	s.notify.Notify(s.coll, p.ID)
	return nil
}

// Release frees p (as read under the cell's lock) with its event.
// ErrVersionClash when it changed since.
func (s *Plots) Release(ctx context.Context, p Plot, ev events.Event) error {
	free := Plot{ID: p.ID, X: p.X, Y: p.Y, OwnerKey: FreeKey(p.ID), Version: p.Version + 1}
	res, err := s.coll.UpdateOne(ctx, s.db.Guarded(p.ID, bson.M{"version": p.Version, "owner_key": p.OwnerKey}),
		events.WithOutbox(bson.M{"$set": free.fields()}, ev))
	if err != nil {
		return fmt.Errorf("release %s: %w", p.ID, err)
	}
	if res.MatchedCount == 0 {
		return ErrVersionClash
	}
	s.notify.Notify(s.coll, p.ID)
	return nil
}

// ClaimedIn lists the claimed cells inside a square (nearest-available search).
func (s *Plots) ClaimedIn(ctx context.Context, sq domain.Square) ([]domain.Coordinates, error) {
	docs, err := mongox.FindAll[Plot](ctx, s.coll, bson.M{"claimed": true,
		"x": bson.M{"$gte": sq.MinX, "$lte": sq.MaxX}, "y": bson.M{"$gte": sq.MinY, "$lte": sq.MaxY}},
		options.Find().SetProjection(bson.M{"x": 1, "y": 1}))
	if err != nil {
		return nil, fmt.Errorf("read claimed cells: %w", err)
	}
	out := make([]domain.Coordinates, len(docs))
	for i, d := range docs {
		out[i] = d.Cell()
	}
	return out, nil
}

// CountClaimed counts claimed cells, the commons included.
func (s *Plots) CountClaimed(ctx context.Context) (int64, error) {
	n, err := s.coll.CountDocuments(ctx, bson.M{"claimed": true})
	if err != nil {
		return 0, fmt.Errorf("count claimed plots: %w", err)
	}
	return n, nil
}

// ListClaimed returns up to limit claimed plots after the cell `after`
// (nil: from the start), by x then y.
func (s *Plots) ListClaimed(ctx context.Context, after *domain.Coordinates, limit int) ([]Plot, error) {
	filter := bson.M{"claimed": true}
	if after != nil {
		filter["$or"] = bson.A{
			bson.M{"x": bson.M{"$gt": after.X}},
			bson.M{"x": after.X, "y": bson.M{"$gt": after.Y}},
		}
	}
	out, err := mongox.FindAll[Plot](ctx, s.coll, filter, options.Find().SetProjection(noOutbox).
		SetSort(bson.D{{Key: "x", Value: 1}, {Key: "y", Value: 1}}).SetLimit(int64(limit)))
	if err != nil {
		return nil, fmt.Errorf("list plots: %w", err)
	}
	return out, nil
}

// Tenancies returns every live tenancy (to find what abandoned plots left).
func (s *Plots) Tenancies(ctx context.Context) (map[string]bool, error) {
	docs, err := mongox.FindAll[Plot](ctx, s.coll, bson.M{"claimed": true}, options.Find().SetProjection(bson.M{"tenancy": 1}))
	if err != nil {
		return nil, fmt.Errorf("list tenancies: %w", err)
	}
	out := make(map[string]bool, len(docs))
	for _, d := range docs {
		out[d.Tenancy] = true
	}
	return out, nil
}

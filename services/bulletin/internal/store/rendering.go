package store

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// Renderings keeps what the elected aggregator rendered, for the readers:
// the bulletin document and the plot map as served bytes, and the head (how
// far the feed is settled, which document and map are current). Each is
// one document of the "rendering" collection, written only by a leader and
// guarded by its term, so a replica that lost the lease cannot overwrite
// what its successor wrote.
type Renderings struct {
	coll *mongo.Collection
}

var _ domain.RenderingStore = (*Renderings)(nil)

// NewRenderings uses db's "rendering" collection.
func NewRenderings(db *mongox.DB) *Renderings { return &Renderings{coll: db.Collection("rendering")} }

type headDoc struct {
	ID      string `bson:"_id"`
	Term    int64  `bson:"term"`
	Settled int64  `bson:"settled"`
	ETag    string `bson:"etag"`
	MapETag string `bson:"map_etag"`
}

type bytesDoc struct {
	ID   string `bson:"_id"`
	Term int64  `bson:"term"`
	ETag string `bson:"etag"`
	Data []byte `bson:"data"`
}

// SaveHead stores the head written in term, unless a later term wrote one.
func (s *Renderings) SaveHead(ctx context.Context, term int64, h domain.Head) error {
	return s.put(ctx, "head", term, headDoc{ID: "head", Term: term, Settled: h.Settled, ETag: h.ETag, MapETag: h.MapETag})
}

// SaveDocument stores the document's bytes (etag is their tag), as SaveHead.
func (s *Renderings) SaveDocument(ctx context.Context, term int64, etag string, data []byte) error {
	return s.put(ctx, "document", term, bytesDoc{ID: "document", Term: term, ETag: etag, Data: data})
}

// SaveMap stores the map's bytes, as SaveDocument.
func (s *Renderings) SaveMap(ctx context.Context, term int64, etag string, data []byte) error {
	return s.put(ctx, "map", term, bytesDoc{ID: "map", Term: term, ETag: etag, Data: data})
}

// put replaces the document id unless it was written in a later term: the
// upsert's filter then matches nothing and its insert hits the _id.
func (s *Renderings) put(ctx context.Context, id string, term int64, doc any) error {
	_, err := s.coll.ReplaceOne(ctx, bson.M{"_id": id, "term": bson.M{"$lte": term}}, doc, options.Replace().SetUpsert(true))
	if mongox.IsDuplicate(err) {
		return fmt.Errorf("store %s: %w", id, domain.ErrLeaseHeld)
	}
	if err != nil {
		return fmt.Errorf("store %s: %w", id, err)
	}
	return nil
}

// Head returns the stored head (ok false before any aggregator led).
func (s *Renderings) Head(ctx context.Context) (domain.Head, bool, error) {
	var d headDoc
	err := s.coll.FindOne(ctx, bson.M{"_id": "head"}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return domain.Head{}, false, nil
	}
	if err != nil {
		return domain.Head{}, false, fmt.Errorf("read head: %w", err)
	}
	return domain.Head{Settled: d.Settled, ETag: d.ETag, MapETag: d.MapETag}, true, nil
}

// Document returns the stored document's tag and bytes.
func (s *Renderings) Document(ctx context.Context) (string, []byte, bool, error) {
	return s.bytes(ctx, "document")
}

// Map returns the stored map's tag and bytes.
func (s *Renderings) Map(ctx context.Context) (string, []byte, bool, error) {
	return s.bytes(ctx, "map")
}

func (s *Renderings) bytes(ctx context.Context, id string) (string, []byte, bool, error) {
	var d bytesDoc
	err := s.coll.FindOne(ctx, bson.M{"_id": id}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return "", nil, false, nil
	}
	if err != nil {
		return "", nil, false, fmt.Errorf("read %s: %w", id, err)
	}
	return d.ETag, d.Data, true, nil
}

// Drop removes what the aggregator rendered (a rebuild renumbers the feed).
func (s *Renderings) Drop(ctx context.Context) error {
	if err := s.coll.Drop(ctx); err != nil {
		return fmt.Errorf("drop rendering: %w", err)
	}
	return nil
}

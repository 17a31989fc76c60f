package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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

// File is a file's metadata (its head document). The content lives in a
// separate blob document, so listings and the relay never load contents.
// A file belongs to one tenancy of its plot, so files an abandon left
// behind are never visible to the cell's next holder.
type File struct {
	ID          string    `bson:"_id"`
	PlotID      string    `bson:"plot_id"`
	Tenancy     string    `bson:"tenancy"`
	Path        string    `bson:"path"`
	Version     uint64    `bson:"version"`
	Size        int64     `bson:"size_bytes"`
	Hash        string    `bson:"content_hash"`
	ContentType string    `bson:"content_type"`
	WrittenAt   time.Time `bson:"written_at"`
	WrittenBy   string    `bson:"written_by"`
	BlobID      string    `bson:"blob_id"`
}

// Exists reports whether the head was read from a stored file.
func (f File) Exists() bool { return f.Version > 0 }

// FileID is a file's document id. ':' never occurs in a plot id, a tenancy
// or a valid path, so the parts cannot run into each other.
func FileID(plotID, tenancy, path string) string { return plotID + ":" + tenancy + ":" + path }

// NewTenancy draws the id of a new tenancy.
func NewTenancy() string { return randomHex(8) }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go ≥ 1.24)
	return hex.EncodeToString(b)
}

// Files stores file heads and contents. Garden files (the commons) are kept
// in their own collection: they are the only files whose writes carry
// events, and the relay's safety sweep then reads the garden rather than
// every file in the world.
type Files struct {
	files  *mongo.Collection
	garden *mongo.Collection
	blobs  *mongo.Collection
	notify events.Notifier
	db     *mongox.DB
}

// NewFiles uses db's "files", "garden_files" and "blobs" collections; locks
// are the process's document locks, shared with the relay.
func NewFiles(db *mongox.DB, notify events.Notifier) *Files {
	return &Files{files: db.Collection("files"), garden: db.Collection("garden_files"), blobs: db.Collection("blobs"),
		notify: notify, db: db}
}

// OutboxCollection carries garden events (for the relay).
func (s *Files) OutboxCollection() *mongo.Collection { return s.garden }

func (s *Files) coll(plotID string) *mongo.Collection {
	if plotID == domain.CommonsPlotID {
		return s.garden
	}
	return s.files
}

// EnsureIndexes creates the listing indexes (used by MongoDB).
func (s *Files) EnsureIndexes(ctx context.Context) error {
	for _, c := range []*mongo.Collection{s.files, s.garden} {
		if err := mongox.EnsureIndexes(ctx, c, mongox.Index("plot_tenancy_path", false,
			bson.E{Key: "plot_id", Value: 1}, bson.E{Key: "tenancy", Value: 1}, bson.E{Key: "path", Value: 1})); err != nil {
			return err
		}
	}
	return mongox.EnsureIndexes(ctx, s.blobs, mongox.Index("tenancy", false, bson.E{Key: "tenancy", Value: 1}))
}

// Lock takes a file's lock for a read-modify-write of its head; the relay
// takes the same lock to mark garden events sent.
func (s *Files) Lock(plotID, tenancy, path string) (unlock func()) {
	return s.db.Lock(s.coll(plotID), FileID(plotID, tenancy, path))
}

// Head returns a file's head (a zero File when there is none).
func (s *Files) Head(ctx context.Context, plotID, tenancy, path string) (File, error) {
	var f File
	err := s.coll(plotID).FindOne(ctx, bson.M{"_id": FileID(plotID, tenancy, path)},
		options.FindOne().SetProjection(noOutbox)).Decode(&f)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return File{}, nil
	}
	if err != nil {
		return f, fmt.Errorf("read file metadata: %w", err)
	}
	return f, nil
}

// Put makes next the file's head, replacing prev (as read; zero when the
// file is new), with the events the write causes. ErrVersionClash when
// another writer changed the file since prev was read (possible across
// replicas; within a process the file lock rules it out). Call it holding
// the file's lock.
func (s *Files) Put(ctx context.Context, prev, next File, evs ...events.Event) error {
	next.ID = FileID(next.PlotID, next.Tenancy, next.Path)
	coll := s.coll(next.PlotID)
	fields := bson.M{
		"plot_id": next.PlotID, "tenancy": next.Tenancy, "path": next.Path, "version": next.Version,
		"size_bytes": next.Size, "content_hash": next.Hash, "content_type": next.ContentType,
		"written_at": next.WrittenAt, "written_by": next.WrittenBy, "blob_id": next.BlobID,
	}
	if !prev.Exists() {
		fields["_id"] = next.ID
		if len(evs) > 0 {
			fields[events.OutboxField] = evs
		}
		_, err := coll.InsertOne(ctx, fields)
		if mongo.IsDuplicateKeyError(err) {
			return ErrVersionClash
		}
		if err != nil {
			return fmt.Errorf("create file: %w", err)
		}
	} else {
		res, err := coll.UpdateOne(ctx, s.db.Guarded(next.ID, bson.M{"version": prev.Version}),
			events.WithOutbox(bson.M{"$set": fields}, evs...))
		if err != nil {
			return fmt.Errorf("replace file: %w", err)
		}
		if res.MatchedCount == 0 {
			return ErrVersionClash
		}
	}
	if len(evs) > 0 {
		s.notify.Notify(coll, next.ID)
	}
	return nil
}

// Delete removes the file at the version read; ErrVersionClash when it
// changed since. Call it holding the file's lock. Garden files are never deleted (only their owner, the
// system, could), so no unpublished event goes with a deleted head.
func (s *Files) Delete(ctx context.Context, f File) error {
	res, err := s.coll(f.PlotID).DeleteOne(ctx, s.db.Guarded(f.ID, bson.M{"version": f.Version}))
	if err != nil {
		return fmt.Errorf("delete file: %w", err)
	}
	if res.DeletedCount == 0 {
		return ErrVersionClash
	}
	return nil
}

// List returns the files of a tenancy whose path starts with prefix, by
// path. Valid paths use only characters below '~', so every path with the
// prefix sorts inside [prefix, prefix+"~").
func (s *Files) List(ctx context.Context, plotID, tenancy, prefix string) ([]File, error) {
	filter := bson.M{"plot_id": plotID, "tenancy": tenancy}
	if prefix != "" {
		filter["path"] = bson.M{"$gte": prefix, "$lt": prefix + "~"}
	}
	out, err := mongox.FindAll[File](ctx, s.coll(plotID), filter, options.Find().SetProjection(noOutbox).SetSort(bson.D{{Key: "path", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("list files: %w", err)
	}
	return out, nil
}

type blob struct {
	ID      string    `bson:"_id"`
	Tenancy string    `bson:"tenancy"`
	Data    []byte    `bson:"data"`
	Created time.Time `bson:"created_at"`
}

// PutBlob stores content under a fresh id. Every write gets its own blob, so
// concurrent writers of one path never overwrite each other's content, and
// a reader holding the previous head still finds the previous content
// until the writer removes it.
func (s *Files) PutBlob(ctx context.Context, tenancy string, data []byte, now time.Time) (string, error) {
	id := randomHex(16)
	if data == nil {
		data = []byte{}
	}
	if _, err := s.blobs.InsertOne(ctx, blob{ID: id, Tenancy: tenancy, Data: data, Created: now}); err != nil {
		return "", fmt.Errorf("store file content: %w", err)
	}
	return id, nil
}

// Blob returns content by blob id.
func (s *Files) Blob(ctx context.Context, id string) ([]byte, error) {
	var b blob
	err := s.blobs.FindOne(ctx, bson.M{"_id": id}).Decode(&b)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read file content: %w", err)
	}
	return b.Data, nil
}

// DeleteBlob removes content no head points to any more.
func (s *Files) DeleteBlob(ctx context.Context, id string) error {
	if id == "" {
		return nil
	}
	if _, err := s.blobs.DeleteOne(ctx, bson.M{"_id": id}); err != nil {
		return fmt.Errorf("delete file content: %w", err)
	}
	return nil
}

// DeleteTenancy removes every file and content of an ended tenancy.
func (s *Files) DeleteTenancy(ctx context.Context, plotID, tenancy string) error {
	if _, err := s.coll(plotID).DeleteMany(ctx, bson.M{"plot_id": plotID, "tenancy": tenancy}); err != nil {
		return fmt.Errorf("delete files of %s: %w", plotID, err)
	}
	if _, err := s.blobs.DeleteMany(ctx, bson.M{"tenancy": tenancy}); err != nil {
		return fmt.Errorf("delete contents of %s: %w", plotID, err)
	}
	return nil
}

// DeleteOrphans removes files and contents of tenancies that are not live
// (left by a crash between releasing a plot and deleting its files). Only
// documents written before cutoff go: a tenancy claimed after live was read
// writes later than that, so it is never mistaken for an orphan.
func (s *Files) DeleteOrphans(ctx context.Context, live map[string]bool, cutoff time.Time) (int64, error) {
	var removed int64
	for _, target := range []struct {
		c       *mongo.Collection
		timeKey string
	}{{s.files, "written_at"}, {s.blobs, "created_at"}} {
		tenancies, err := target.c.Distinct(ctx, "tenancy", bson.M{})
		if err != nil {
			return removed, fmt.Errorf("find tenancies in %s: %w", target.c.Name(), err)
		}
		dead := bson.A{}
		for _, t := range tenancies {
			if ts, ok := t.(string); ok && !live[ts] {
				dead = append(dead, ts)
			}
		}
		if len(dead) == 0 {
			continue
		}
		res, err := target.c.DeleteMany(ctx, bson.M{"tenancy": bson.M{"$in": dead}, target.timeKey: bson.M{"$lt": cutoff}})
		if err != nil {
			return removed, fmt.Errorf("delete orphans in %s: %w", target.c.Name(), err)
		}
		removed += res.DeletedCount
	}
	return removed, nil
}

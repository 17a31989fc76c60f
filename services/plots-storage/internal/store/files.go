package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// fileDoc is a file's head document. The content lives in a separate blob
// document, so listings and the relay never load contents.
type fileDoc struct {
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
	Hold        string    `bson:"hold"`
	PlantedBy   string    `bson:"planted_by"`
	Removed     bool      `bson:"removed"`
}

func (d fileDoc) file() domain.File {
	return domain.File{PlotID: d.PlotID, Tenancy: d.Tenancy, Path: d.Path, Version: d.Version, Size: d.Size,
		Hash: d.Hash, ContentType: d.ContentType, WrittenAt: d.WrittenAt, WrittenBy: d.WrittenBy, BlobID: d.BlobID, Hold: d.Hold,
		PlantedBy: d.PlantedBy, Removed: d.Removed}
}

func fileDocOf(f domain.File) fileDoc {
	return fileDoc{ID: fileID(f.PlotID, f.Tenancy, f.Path), PlotID: f.PlotID, Tenancy: f.Tenancy, Path: f.Path,
		Version: f.Version, Size: f.Size, Hash: f.Hash, ContentType: f.ContentType, WrittenAt: f.WrittenAt,
		WrittenBy: f.WrittenBy, BlobID: f.BlobID, Hold: f.Hold, PlantedBy: f.PlantedBy, Removed: f.Removed}
}

// fileID is a file's document id. ':' never occurs in a plot id, a tenancy
// or a valid path, so the parts cannot run into each other.
func fileID(plotID, tenancy, path string) string { return plotID + ":" + tenancy + ":" + path }

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
	files  *docs[fileDoc]
	garden *docs[fileDoc]
	blobs  *mongo.Collection
	// mirrors of files and garden_files answer List on an exclusive
	// database (nil on a shared one, where the indexes serve it).
	filesMirror, gardenMirror *fileMirror
	blobRefs                  *blobRefs
	// writers holds this process's writers of one path in turn (Writing).
	writers *mongox.Locks
}

// NewFiles uses db's "files", "garden_files" and "blobs" collections and
// tells notify about new garden events.
func NewFiles(db *mongox.DB, notify mongox.Notifier) *Files {
	s := &Files{files: mongox.NewDocs[fileDoc, eventOf](db, "files", notify),
		garden: mongox.NewDocs[fileDoc, eventOf](db, "garden_files", notify), blobs: db.Collection("blobs"),
		filesMirror: fileMirrorOf(db, "files"), gardenMirror: fileMirrorOf(db, "garden_files"), blobRefs: blobRefsOf(db),
		writers: mongox.NewLocks()}
	if s.filesMirror != nil {
		s.filesMirror.keep(s.files)
		s.gardenMirror.keep(s.garden)
	}
	return s
}

// mirror is the in-memory copy of plotID's file heads (nil: none).
func (s *Files) mirror(plotID string) *fileMirror {
	if plotID == domain.CommonsPlotID {
		return s.gardenMirror
	}
	return s.filesMirror
}

// OutboxCollection carries garden events (for the relay).
func (s *Files) OutboxCollection() *mongo.Collection { return s.garden.Collection() }

// docs are the heads of plotID's files.
func (s *Files) docs(plotID string) *docs[fileDoc] {
	if plotID == domain.CommonsPlotID {
		return s.garden
	}
	return s.files
}

// EnsureIndexes creates the listing indexes (used by MongoDB).
func (s *Files) EnsureIndexes(ctx context.Context) error {
	for _, d := range []*docs[fileDoc]{s.files, s.garden} {
		if err := mongox.EnsureIndexes(ctx, d.Collection(), mongox.Index("plot_tenancy_path", false,
			bson.E{Key: "plot_id", Value: 1}, bson.E{Key: "tenancy", Value: 1}, bson.E{Key: "path", Value: 1})); err != nil {
			return err
		}
	}
	if err := mongox.EnsureIndexes(ctx, s.blobs, mongox.Index("tenancy", false, bson.E{Key: "tenancy", Value: 1})); err != nil {
		return err
	}
	if s.filesMirror == nil {
		return nil
	}
	if err := s.filesMirror.load(ctx, s.files); err != nil {
		return err
	}
	if err := s.gardenMirror.load(ctx, s.garden); err != nil {
		return err
	}
	return s.blobRefs.load(ctx, s.blobs)
}

// Writing waits until no other writer of this process writes the path and
// returns the function that lets the next one in. It is no document's lock
// (a holder takes the account's and the head's locks under it), and only
// this process's writers wait: another replica's write still meets the
// head's version.
func (s *Files) Writing(plotID, tenancy, path string) (done func()) {
	return s.writers.Lock(fileID(plotID, tenancy, path))
}

// Head returns a file's head (a zero File when there is none).
func (s *Files) Head(ctx context.Context, plotID, tenancy, path string) (domain.File, error) {
	d, err := s.docs(plotID).Get(ctx, fileID(plotID, tenancy, path))
	if errors.Is(err, mongox.ErrNotFound) {
		return domain.File{}, nil
	}
	if err != nil {
		return domain.File{}, fmt.Errorf("read file metadata: %w", err)
	}
	return d.file(), nil
}

// Change runs fn on the file's head (a zero File with its plot, tenancy and
// path when there is none) and stores the result as the file's next
// version with fn's events.
func (s *Files) Change(ctx context.Context, plotID, tenancy, path string, fn func(*domain.File) ([]domain.Event, error)) (domain.File, error) {
	fresh := func() domain.File { return domain.File{PlotID: plotID, Tenancy: tenancy, Path: path} }
	return change(ctx, s.docs(plotID), fileID(plotID, tenancy, path), fresh, fileDocOf, fileDoc.file, fn)
}

// Delete removes the file if check, run on its current head, allows it;
// domain.ErrNotFound when there is none. Garden files are never deleted
// this way: a removal keeps the head, marked removed, so no unpublished
// event goes with a deleted head.
func (s *Files) Delete(ctx context.Context, plotID, tenancy, path string, check func(domain.File) error) error {
	return outcome(s.docs(plotID).Delete(ctx, fileID(plotID, tenancy, path), func(d *fileDoc) error { return check(d.file()) }))
}

// blob is a file's content. Blobs are immutable: written once under a fresh
// id and removed whole, never changed, so they need neither a version nor
// an outbox and are written directly rather than through mongox.Docs.
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
	if s.blobRefs != nil {
		s.blobRefs.Put(blobRef{ID: id, Tenancy: tenancy, Created: clock.Stored(now)})
	}
	return id, nil
}

// Blob returns content by blob id.
func (s *Files) Blob(ctx context.Context, id string) ([]byte, error) {
	var b blob
	err := s.blobs.FindOne(ctx, bson.M{"_id": id}).Decode(&b)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, domain.ErrNotFound
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
	var taken []blobRef
	if s.blobRefs != nil {
		taken = s.blobRefs.take(id)
	}
	if _, err := s.blobs.DeleteOne(ctx, bson.M{"_id": id}); err != nil {
		s.blobRefs.restore(taken)
		return fmt.Errorf("delete file content: %w", err)
	}
	return nil
}

// DeleteTenancy removes every file and content of an ended tenancy.
func (s *Files) DeleteTenancy(ctx context.Context, plotID, tenancy string) error {
	if _, err := s.docs(plotID).Collection().DeleteMany(ctx, bson.M{"plot_id": plotID, "tenancy": tenancy}); err != nil {
		return fmt.Errorf("delete files of %s: %w", plotID, err)
	}
	if m := s.mirror(plotID); m != nil {
		m.deleteWhere(func(d *fileDoc) bool { return d.PlotID == plotID && d.Tenancy == tenancy })
	}
	var taken []blobRef
	if s.blobRefs != nil {
		taken = s.blobRefs.takeWhere(func(r *blobRef) bool { return r.Tenancy == tenancy })
	}
	if _, err := s.blobs.DeleteMany(ctx, bson.M{"tenancy": tenancy}); err != nil {
		s.blobRefs.restore(taken)
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
	}{{s.files.Collection(), "written_at"}, {s.blobs, "created_at"}} {
		tenancies, err := s.tenancies(ctx, target.c)
		if err != nil {
			return removed, fmt.Errorf("find tenancies in %s: %w", target.c.Name(), err)
		}
		dead := bson.A{}
		for _, t := range tenancies {
			if !live[t] {
				dead = append(dead, t)
			}
		}
		if len(dead) == 0 {
			continue
		}
		var taken []blobRef
		if target.c == s.blobs && s.blobRefs != nil {
			taken = s.blobRefs.takeWhere(func(r *blobRef) bool { return !live[r.Tenancy] && r.Created.Before(clock.Stored(cutoff)) })
		}
		res, err := target.c.DeleteMany(ctx, bson.M{"tenancy": bson.M{"$in": dead}, target.timeKey: bson.M{"$lt": cutoff}})
		if err != nil {
			s.blobRefs.restore(taken)
			return removed, fmt.Errorf("delete orphans in %s: %w", target.c.Name(), err)
		}
		removed += res.DeletedCount
		if target.c == s.files.Collection() && s.filesMirror != nil {
			s.filesMirror.deleteWhere(func(d *fileDoc) bool {
				return !live[d.Tenancy] && d.WrittenAt.Before(clock.Stored(cutoff))
			})
		}
	}
	return removed, nil
}

// tenancies are the tenancies c holds documents of (the files or the
// blobs): on an exclusive database from memory (the blobs' copy may name
// a few more), else the collection's distinct values.
func (s *Files) tenancies(ctx context.Context, c *mongo.Collection) ([]string, error) {
	var set map[string]bool
	switch {
	case c == s.files.Collection() && s.filesMirror != nil:
		if err := s.filesMirror.load(ctx, s.files); err != nil {
			return nil, err
		}
		set = s.filesMirror.tenancies()
	case c == s.blobs && s.blobRefs != nil:
		if err := s.blobRefs.load(ctx, s.blobs); err != nil {
			return nil, err
		}
		set = s.blobRefs.tenancies()
	default:
		values, err := c.Distinct(ctx, "tenancy", bson.M{})
		if err != nil {
			return nil, err
		}
		var out []string
		for _, v := range values {
			if t, ok := v.(string); ok {
				out = append(out, t)
			}
		}
		return out, nil
	}
	return slices.Sorted(maps.Keys(set)), nil
}

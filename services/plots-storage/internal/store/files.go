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

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// fileDoc is a file's head document. Content of up to
// domain.InlineContentBytes lives in it; larger content lives in a blob
// document of its own. Listings and the copies in memory leave the content
// out (headFields).
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
	Content     []byte    `bson:"content"`
	Hold        string    `bson:"hold"`
	PlantedBy   string    `bson:"planted_by"`
	Removed     bool      `bson:"removed"`
}

func (d fileDoc) file() domain.File {
	return domain.File{PlotID: d.PlotID, Tenancy: d.Tenancy, Path: d.Path, Version: d.Version, Size: d.Size,
		Hash: d.Hash, ContentType: d.ContentType, WrittenAt: d.WrittenAt, WrittenBy: d.WrittenBy, BlobID: d.BlobID, Content: d.Content,
		Hold: d.Hold, PlantedBy: d.PlantedBy, Removed: d.Removed}
}

func fileDocOf(f domain.File) fileDoc {
	return fileDoc{ID: fileID(f.PlotID, f.Tenancy, f.Path), PlotID: f.PlotID, Tenancy: f.Tenancy, Path: f.Path,
		Version: f.Version, Size: f.Size, Hash: f.Hash, ContentType: f.ContentType, WrittenAt: f.WrittenAt,
		WrittenBy: f.WrittenBy, BlobID: f.BlobID, Content: f.Content, Hold: f.Hold, PlantedBy: f.PlantedBy,
		Removed: f.Removed}
}

// fileID is a file's document id. ':' never occurs in a plot id, a tenancy
// or a valid path, so the parts cannot run into each other.
func fileID(plotID, tenancy, path string) string { return plotID + ":" + tenancy + ":" + path }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go ≥ 1.24)
	return hex.EncodeToString(b)
}

// Files is the adapter of file heads and contents on MongoDB: listings are
// queries its indexes serve. Garden files (the commons) are kept in their
// own collection: they are the only files whose writes carry events, and
// the relay's safety sweep then reads the garden rather than every file in
// the world.
type Files struct {
	files  *docs[fileDoc]
	garden *docs[fileDoc]
	blobs  *mongo.Collection
	// writers holds this process's writers of one path in turn (Writing).
	writers *mongox.Locks
}

// NewFiles uses db's "files", "garden_files" and "blobs" collections and
// tells notify about new garden events.
func NewFiles(db *mongox.DB, notify mongox.Notifier) *Files {
	return &Files{files: mongox.NewDocs[fileDoc, eventOf](db, "files", notify),
		garden: mongox.NewDocs[fileDoc, eventOf](db, "garden_files", notify), blobs: db.Collection("blobs"),
		writers: mongox.NewLocks()}
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
	return mongox.EnsureIndexes(ctx, s.blobs, mongox.Index("tenancy", false, bson.E{Key: "tenancy", Value: 1}))
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

// PutBlob stores content under a fresh id. Every write of a content too
// large for its head gets its own blob, so concurrent writers of one path
// never overwrite each other's content, and a reader holding the previous
// head still finds the previous content until the writer removes it.
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

// Content is f's content: from its blob, or from its head when the head
// holds it. domain.ErrNotFound when the head stored is no longer f (a
// write replaced it meanwhile): read the head again. A head is f when it
// has f's version and names f's hold: a file deleted and written again
// starts over at version 1, but every write takes a hold of its own.
func (s *Files) Content(ctx context.Context, f domain.File) ([]byte, error) {
	if f.BlobID != "" {
		return s.Blob(ctx, f.BlobID)
	}
	if f.Content != nil {
		return f.Content, nil
	}
	var d fileDoc
	err := s.docs(f.PlotID).Collection().FindOne(ctx, bson.M{"_id": fileID(f.PlotID, f.Tenancy, f.Path)},
		options.FindOne().SetProjection(bson.M{"version": 1, "hold": 1, "blob_id": 1, "content": 1})).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, domain.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read file content: %w", err)
	}
	if d.Version != f.Version || d.Hold != f.Hold || d.BlobID != "" {
		return nil, domain.ErrNotFound
	}
	if d.Content == nil {
		return []byte{}, nil
	}
	return d.Content, nil
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
	if _, err := s.blobs.DeleteOne(ctx, bson.M{"_id": id}); err != nil {
		return fmt.Errorf("delete file content: %w", err)
	}
	return nil
}

// FlushDeletes does nothing: DeleteBlob removes at once here.
func (s *Files) FlushDeletes(context.Context) {}

// DeleteTenancy removes every file and content of an ended tenancy.
func (s *Files) DeleteTenancy(ctx context.Context, plotID, tenancy string) error {
	if err := s.deleteHeadsOf(ctx, plotID, tenancy); err != nil {
		return err
	}
	return s.deleteContentsOf(ctx, plotID, tenancy)
}

func (s *Files) deleteHeadsOf(ctx context.Context, plotID, tenancy string) error {
	if _, err := s.docs(plotID).Collection().DeleteMany(ctx, bson.M{"plot_id": plotID, "tenancy": tenancy}); err != nil {
		return fmt.Errorf("delete files of %s: %w", plotID, err)
	}
	return nil
}

func (s *Files) deleteContentsOf(ctx context.Context, plotID, tenancy string) error {
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
	heads, err := s.headTenancies(ctx)
	if err != nil {
		return 0, fmt.Errorf("find tenancies in %s: %w", s.files.Collection().Name(), err)
	}
	removed, err := s.orphanHeads().deleteDead(ctx, heads, live, cutoff)
	if err != nil {
		return removed, err
	}
	contents, err := s.blobTenancies(ctx)
	if err != nil {
		return removed, fmt.Errorf("find tenancies in %s: %w", s.blobs.Name(), err)
	}
	n, err := s.orphanContents().deleteDead(ctx, contents, live, cutoff)
	return removed + n, err
}

// headTenancies are the tenancies holding plot files (the garden's are
// never orphans).
func (s *Files) headTenancies(ctx context.Context) ([]string, error) {
	return distinctTenancies(ctx, s.files.Collection())
}

// blobTenancies are the tenancies holding content.
func (s *Files) blobTenancies(ctx context.Context) ([]string, error) {
	return distinctTenancies(ctx, s.blobs)
}

// orphans are the documents of one collection DeleteOrphans clears: the
// file heads (the garden's are never orphans) or the contents, each dated
// by its own field.
type orphans struct {
	c       *mongo.Collection
	timeKey string
}

func (s *Files) orphanHeads() orphans    { return orphans{s.files.Collection(), "written_at"} }
func (s *Files) orphanContents() orphans { return orphans{s.blobs, "created_at"} }

// deleteDead deletes the documents written before cutoff of those of
// tenancies (the ones o holds) that are not live.
func (o orphans) deleteDead(ctx context.Context, tenancies []string, live map[string]bool, cutoff time.Time) (int64, error) {
	dead := bson.A{}
	for _, t := range tenancies {
		if !live[t] {
			dead = append(dead, t)
		}
	}
	if len(dead) == 0 {
		return 0, nil
	}
	res, err := o.c.DeleteMany(ctx, bson.M{"tenancy": bson.M{"$in": dead}, o.timeKey: bson.M{"$lt": cutoff}})
	if err != nil {
		return 0, fmt.Errorf("delete orphans in %s: %w", o.c.Name(), err)
	}
	return res.DeletedCount, nil
}

// distinctTenancies are the tenancies c holds documents of.
func distinctTenancies(ctx context.Context, c *mongo.Collection) ([]string, error) {
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

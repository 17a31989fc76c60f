package mongox

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"time"

	"github.com/fxamacker/cbor/v2"
	"github.com/prometheus/client_golang/prometheus"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/metrics"
)

// mirrorLoads counts the Mirrors filled, by where their rows came from.
var mirrorLoads = metrics.Register(prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "sharedworld_mirror_loads_total",
	Help: "In-memory copies of collections filled at start, by source (snapshot of the last clean stop, or scan).",
}, []string{"source"}))

// A snapshot spares the next start of an Exclusive database the scans that
// fill its Mirrors (FerretDB v1 decodes every document of a scan, about
// 120 µs each). At a clean stop, once nothing writes any more, the host
// writes every loaded Mirror of the database to a file under its data
// directory (WriteSnapshot) and then records a token, with the file's
// checksum, in the database itself. At the next start, before anything
// writes, OpenSnapshot takes the token out of the database: from then on a
// crash (kill -9 included) leaves no token, and the start after it scans.
// A Mirror reads its rows from the snapshot only when the token matched,
// the file is whole, its row type is the one written and no write reached
// it before Load; any doubt is a scan, never a stale copy.

// snapshotColl holds the token of the last clean stop, one document.
const (
	snapshotColl = "_mirror_snapshot"
	snapshotID   = "mirrors"
)

// snapshotToken is what the database says about the file: which snapshot
// it vouches for, and its checksum.
type snapshotToken struct {
	ID        string    `bson:"_id"`
	Token     string    `bson:"token"`
	SHA256    string    `bson:"sha256"`
	Rows      int       `bson:"rows"`
	WrittenAt time.Time `bson:"written_at"`
	// OutboxesEmpty says every relay of the database ended with nothing
	// to publish (outboxes.go); absent in older tokens, which is false.
	OutboxesEmpty bool `bson:"outboxes_empty"`
}

type snapshotFile struct {
	Format   int
	DB       string
	Token    string
	Sections []snapshotSection
}

// snapshotSection is one Mirror's rows, with the schema of their type.
type snapshotSection struct {
	Coll   string
	Schema string
	Count  int
	Rows   cbor.RawMessage
}

// snapshots is a DB's side of it: the sections read at start, taken by
// each Mirror's Load, and the log of where each copy came from.
type snapshots struct {
	mu       sync.Mutex
	log      *slog.Logger
	sections map[string]snapshotSection
	// outboxesEmpty is the token's word on the outboxes (OutboxesEmpty).
	outboxesEmpty bool
}

// snapshotter is a Mirror of any row type.
type snapshotter interface {
	snapshotSection() (snapshotSection, bool, error)
}

// SnapshotPath is where the snapshot of database name lives under dir.
func SnapshotPath(dir, name string) string {
	return filepath.Join(dir, "mirrors", name+".snapshot")
}

// OpenSnapshot takes the token of the last clean stop out of the database
// and reads the snapshot it vouches for from dir, for the Mirrors' Load to
// use. It must run before anything writes the database. No token, or a
// file that does not match it, only means the Mirrors scan (logged). An
// error (the token could not be taken out) must stop the start: a token
// left in place would vouch for the file after a later crash.
func (d *DB) OpenSnapshot(ctx context.Context, dir string, log *slog.Logger) error {
	if !d.Exclusive() {
		return nil
	}
	d.snap.mu.Lock()
	defer d.snap.mu.Unlock()
	d.snap.log = log.With(slog.String("db", d.Name()))
	d.snap.outboxesEmpty = false
	var tok snapshotToken
	err := d.Collection(snapshotColl).FindOneAndDelete(ctx, bson.M{"_id": snapshotID}).Decode(&tok)
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return fmt.Errorf("take the snapshot token of %s: %w", d.Name(), err)
	}
	path := SnapshotPath(dir, d.Name())
	data, rerr := os.ReadFile(path)
	// The token is gone: whatever happens next, this file will not vouch
	// for anything again.
	_ = os.Remove(path)
	if errors.Is(err, mongo.ErrNoDocuments) {
		if rerr == nil {
			d.snap.log.Info("a snapshot without its token (the last run did not stop cleanly): scanning")
		}
		return nil
	}
	// The token alone vouches for the outboxes: it was recorded after
	// every relay had ended, and taken out before anything wrote.
	d.snap.outboxesEmpty = tok.OutboxesEmpty
	if rerr != nil {
		d.snap.log.Warn("snapshot token without its file: scanning", slog.String("error", rerr.Error()))
		return nil
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != tok.SHA256 {
		d.snap.log.Warn("snapshot file does not match its token's checksum: scanning")
		return nil
	}
	var f snapshotFile
	if err := rowDec.Unmarshal(data, &f); err != nil || f.Format != snapshotFormat || f.DB != d.Name() || f.Token != tok.Token {
		d.snap.log.Warn("snapshot file is not the one its token names: scanning")
		return nil
	}
	d.snap.sections = make(map[string]snapshotSection, len(f.Sections))
	for _, s := range f.Sections {
		d.snap.sections[s.Coll] = s
	}
	return nil
}

// restoreRows are the rows of coll's Mirror from the snapshot, if it has
// them for row type R and no write reached the Mirror first (early). The
// section is taken either way: it holds only once.
func restoreRows[R any](d *DB, coll string, early bool) ([]R, bool) {
	if d == nil {
		return nil, false
	}
	d.snap.mu.Lock()
	s, ok := d.snap.sections[coll]
	delete(d.snap.sections, coll)
	log := d.snap.log
	d.snap.mu.Unlock()
	if !ok || early {
		return nil, false
	}
	schema, err := rowSchema(reflect.TypeFor[R]())
	if err != nil || schema != s.Schema {
		log.Info("the row type changed since the snapshot: scanning", slog.String("collection", coll))
		return nil, false
	}
	var rows []R
	if err := rowDec.Unmarshal(s.Rows, &rows); err != nil || len(rows) != s.Count {
		log.Warn("snapshot section unreadable: scanning", slog.String("collection", coll))
		return nil, false
	}
	return rows, true
}

// loaded logs where a Mirror's rows came from.
func (d *DB) loaded(coll string, rows int, restored bool, took time.Duration) {
	if d == nil {
		return
	}
	d.snap.mu.Lock()
	log := d.snap.log
	d.snap.mu.Unlock()
	source := "scan"
	if restored {
		source = "snapshot"
	}
	mirrorLoads.WithLabelValues(source).Inc()
	if log != nil {
		log.Info("in-memory copy loaded", slog.String("collection", coll), slog.String("source", source),
			slog.Int("rows", rows), slog.Duration("took", took))
	}
}

// WriteSnapshot writes every loaded Mirror of the database to a snapshot
// under dir and records its token in the database, with whether every
// relay of the database ended with nothing to publish. The caller must know
// that nothing writes any more (the host's HTTP server and background
// work have stopped); as a guard it takes every document lock of the
// database first (waiting at most until deadline) and keeps them: a writer
// that comes later waits for ever rather than change what the snapshot
// says. A row type that cannot be kept is left out (its Mirror scans).
func (d *DB) WriteSnapshot(ctx context.Context, dir string, deadline time.Time) (rows int, err error) {
	if !d.Exclusive() {
		return 0, nil
	}
	var ms []snapshotter
	d.mirrors.Range(func(_, m any) bool {
		ms = append(ms, m.(snapshotter))
		return true
	})
	if len(ms) == 0 && !d.keepsOutboxes() {
		return 0, nil
	}
	if !d.locks.freeze(deadline) {
		return 0, errors.New("a write was still in flight")
	}
	// Asked once no write can come any more: a relay that ended settled
	// stays so.
	outboxesEmpty := d.outboxesSettled()
	tok := make([]byte, 16)
	_, _ = rand.Read(tok)
	f := snapshotFile{Format: snapshotFormat, DB: d.Name(), Token: hex.EncodeToString(tok)}
	for _, m := range ms {
		s, ok, err := m.snapshotSection()
		if err != nil {
			d.snap.mu.Lock()
			if d.snap.log != nil {
				d.snap.log.Info("in-memory copy left out of the snapshot", slog.String("error", err.Error()))
			}
			d.snap.mu.Unlock()
		}
		if ok {
			f.Sections = append(f.Sections, s)
			rows += s.Count
		}
	}
	if len(f.Sections) == 0 && !outboxesEmpty {
		return 0, nil
	}
	data, err := rowEnc.Marshal(f)
	if err != nil {
		return 0, fmt.Errorf("encode the snapshot: %w", err)
	}
	if err := writeFileSynced(SnapshotPath(dir, d.Name()), data); err != nil {
		return 0, err
	}
	sum := sha256.Sum256(data)
	_, err = d.Collection(snapshotColl).ReplaceOne(ctx, bson.M{"_id": snapshotID},
		snapshotToken{ID: snapshotID, Token: f.Token, SHA256: hex.EncodeToString(sum[:]), Rows: rows, WrittenAt: time.Now().UTC(), OutboxesEmpty: outboxesEmpty},
		options.Replace().SetUpsert(true))
	if err != nil {
		return 0, fmt.Errorf("record the snapshot token: %w", err)
	}
	return rows, nil
}

// snapshotSection encodes the copy's rows, if it was loaded (a copy never
// loaded in this run holds only the writes since the start).
func (m *Mirror[R]) snapshotSection() (snapshotSection, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if !m.loaded.Load() {
		return snapshotSection{}, false, nil
	}
	schema, err := rowSchema(reflect.TypeFor[R]())
	if err != nil {
		return snapshotSection{}, false, fmt.Errorf("%s: %w", m.coll, err)
	}
	rows := make([]R, 0, len(m.rows))
	for _, r := range m.rows {
		rows = append(rows, *r)
	}
	data, err := rowEnc.Marshal(rows)
	if err != nil {
		return snapshotSection{}, false, fmt.Errorf("%s: %w", m.coll, err)
	}
	// The proof that the encoding loses nothing of these rows: they read
	// back equal (a value the schema cannot judge, such as an instant in a
	// named zone, would come back otherwise).
	var back []R
	if err := rowDec.Unmarshal(data, &back); err != nil || len(back) != len(rows) {
		return snapshotSection{}, false, fmt.Errorf("%s: the rows do not read back: %w", m.coll, err)
	}
	for i := range rows {
		if !reflect.DeepEqual(rows[i], back[i]) {
			return snapshotSection{}, false, fmt.Errorf("%s: row %s does not read back equal", m.coll, m.id(&rows[i]))
		}
	}
	return snapshotSection{Coll: m.coll, Schema: schema, Count: len(rows), Rows: data}, true, nil
}

// writeFileSynced replaces path with data whole: a temporary file, synced,
// renamed over it, and the directory synced.
func writeFileSynced(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("snapshot directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".snapshot-*")
	if err != nil {
		return fmt.Errorf("snapshot file: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write the snapshot: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("sync the snapshot: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close the snapshot: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("place the snapshot: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

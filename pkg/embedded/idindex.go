package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the driver FerretDB itself uses
)

// FerretDB v1 on SQLite looks documents up by `_ferretdb_sjson->'$._id'`,
// but indexes _id under a different expression, so SQLite cannot use that
// index and every single-document read, update and delete scans the whole
// table. indexIDs adds, to every collection table, an index on exactly the
// expression FerretDB queries with, which turns those scans into index
// lookups. FerretDB neither sees nor minds the extra index; it goes with the
// table when a collection is dropped.
func indexIDs(ctx context.Context, dir string) error {
	open := openFiles{}
	defer open.close()
	return open.indexIDs(ctx, dir)
}

// openFiles keeps the background pass's connections to each database file
// from one pass to the next: opening a file (its pragmas, the schema read)
// every 250 ms cost more CPU than the pass's own queries.
type openFiles map[string]openFile

// openFile is a connection and the file it opened: a database dropped and
// made again under the same name is another file, opened anew. indexed is
// the file's schema version once its tables were last seen indexed: until
// it moves (a table made), the pass reads no schema.
type openFile struct {
	db      *sql.DB
	info    os.FileInfo
	indexed int64
	// settled is the file's data version when a checkpoint last copied
	// the whole log: until another connection commits, there is nothing
	// to checkpoint.
	settled int64
}

func (o openFiles) indexIDs(ctx context.Context, dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.sqlite"))
	if err != nil {
		return err
	}
	for _, f := range files {
		if _, err := o.indexFile(ctx, f); err != nil && ctx.Err() == nil {
			return fmt.Errorf("%s: %w", filepath.Base(f), err)
		}
	}
	return nil
}

func (o openFiles) close() {
	for path, f := range o {
		_ = f.db.Close()
		delete(o, path)
	}
}

// passDid says what a pass did on a file.
type passDid struct{ schemaRead, checkpointed bool }

// indexFile indexes the file's new tables, if its schema moved since the
// last pass, and checkpoints its log, if another connection committed
// since its last complete checkpoint.
func (o openFiles) indexFile(ctx context.Context, path string) (did passDid, err error) {
	info, err := os.Stat(path)
	if f, ok := o[path]; ok && (err != nil || !os.SameFile(f.info, info)) {
		_ = f.db.Close() // dropped, or dropped and made again
		delete(o, path)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return did, nil // dropped meanwhile
	}
	if err != nil {
		return did, err
	}
	f, ok := o[path]
	if !ok {
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
		if err != nil {
			return did, err
		}
		db.SetMaxOpenConns(1)
		f = openFile{db: db, info: info, indexed: -1, settled: -1}
	}
	// Reading sqlite_master for every file four times a second was a
	// share of the runner's CPU under load; the schema version, in the
	// file's header, says whether there is anything new to read.
	var version int64
	if err := f.db.QueryRowContext(ctx, `PRAGMA schema_version`).Scan(&version); err != nil {
		o[path] = f
		return did, err
	}
	if version != f.indexed {
		if err := indexTables(ctx, f.db); err != nil {
			o[path] = f
			return did, err
		}
		// The version read before: the indexes just made move it, so the
		// next pass reads the schema once more, and a table made meanwhile
		// is not taken for seen.
		f.indexed, did.schemaRead = version, true
	}
	var data int64
	if err := f.db.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&data); err != nil {
		o[path] = f
		return did, err
	}
	if data != f.settled {
		complete, err := checkpoint(ctx, f.db)
		if err != nil {
			o[path] = f
			return did, err
		}
		if f.settled, did.checkpointed = -1, true; complete {
			f.settled = data
		}
	}
	o[path] = f
	return did, nil
}

// indexTables adds the _id lookup index to the tables that lack it.
func indexTables(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, `SELECT t.name FROM sqlite_master t
		WHERE t.type = 'table' AND t.name NOT LIKE '\_ferretdb%' ESCAPE '\'
		AND NOT EXISTS (SELECT 1 FROM sqlite_master i WHERE i.type = 'index' AND i.name = t.name || '_sw_id')`)
	if err != nil {
		return err
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		tables = append(tables, name)
	}
	rows.Close()
	for _, t := range tables {
		q := fmt.Sprintf(`CREATE INDEX IF NOT EXISTS "%s_sw_id" ON "%s" (_ferretdb_sjson->'$._id')`, strings.ReplaceAll(t, `"`, ``), strings.ReplaceAll(t, `"`, ``))
		if _, err := db.ExecContext(ctx, q); err != nil && !strings.Contains(err.Error(), "no such table") {
			return err
		}
	}
	return nil
}

// checkpoint copies the write-ahead log into the database without waiting
// for anyone. FerretDB's update keeps its read of the document open while
// it commits the new one, so the checkpoint SQLite runs after that commit
// stops one write short of the log's end; a database written by updates
// alone (identity's presence) then never finishes one, and the log cannot
// start over and grows for as long as the updates come. This pass runs
// between writes, where no read holds it back; the next write starts the
// log over. PASSIVE takes no write lock and never waits, so FerretDB's own
// writes are not held up (RESTART and TRUNCATE wait for readers while
// holding the write lock, and writers then fail with SQLITE_BUSY).
//
// complete says the whole log was copied: a file no one writes to after
// that has nothing more to checkpoint.
func checkpoint(ctx context.Context, db *sql.DB) (complete bool, err error) {
	var busy, frames, copied int64
	if err := db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied); err != nil {
		return false, err
	}
	return busy == 0 && frames == copied, nil
}

// indexLoop keeps new collections indexed and the write-ahead logs
// checkpointed until ctx ends.
func indexLoop(ctx context.Context, dir string, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	open := openFiles{}
	defer open.close()
	for {
		_ = open.indexIDs(ctx, dir)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

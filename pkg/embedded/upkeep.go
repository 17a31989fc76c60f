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

// spareIDIndexSuffix names the second _id index earlier versions added to
// every collection table: FerretDB looked documents up by an expression its
// own _id index was not on, so SQLite scanned instead. The embedded FerretDB
// now looks them up by the expression of its own index (SHAREDWORLD.md), and
// the second index only cost every insert, update and delete an index entry
// more to write.
const spareIDIndexSuffix = "_sw_id"

// dropSpareIDIndexes removes the second _id indexes from the database files
// under dir, before FerretDB opens them. FerretDB never recorded them, so
// nothing else changes.
func dropSpareIDIndexes(ctx context.Context, dir string) error {
	files, err := databaseFiles(dir)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := dropSpareIDIndexesOf(ctx, f); err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(f), err)
		}
	}
	return nil
}

// databaseFiles are the database files under dir, one per database.
func databaseFiles(dir string) ([]string, error) {
	return filepath.Glob(filepath.Join(dir, "*.sqlite"))
}

// openDatabaseFile opens one connection to the database file at path,
// beside FerretDB's own, waiting up to 10 s for a lock they hold.
func openDatabaseFile(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

func dropSpareIDIndexesOf(ctx context.Context, path string) error {
	db, err := openDatabaseFile(path)
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master
		WHERE type = 'index' AND name LIKE ? ESCAPE '\' AND sql LIKE '%->''$._id'')'`,
		`%`+strings.ReplaceAll(spareIDIndexSuffix, "_", `\_`))
	if err != nil {
		return err
	}
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		names = append(names, name)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, name := range names {
		if _, err := db.ExecContext(ctx, fmt.Sprintf(`DROP INDEX IF EXISTS "%s"`, strings.ReplaceAll(name, `"`, `""`))); err != nil {
			return err
		}
	}
	return nil
}

// openFiles keeps the background pass's connections to each database file
// from one pass to the next: opening a file (its pragmas, the schema read)
// every pass cost more CPU than the pass's own queries.
type openFiles map[string]openFile

// openFile is a connection and the file it opened: a database dropped and
// made again under the same name is another file, opened anew. settled is
// the file's data version when a checkpoint last copied the whole log:
// until another connection commits, there is nothing to checkpoint.
type openFile struct {
	db      *sql.DB
	info    os.FileInfo
	settled int64
}

// checkpointAll checkpoints the log of every database file under dir that
// another connection committed to since its last complete checkpoint.
func (o openFiles) checkpointAll(ctx context.Context, dir string) error {
	files, err := databaseFiles(dir)
	if err != nil {
		return err
	}
	for _, f := range files {
		if _, err := o.checkpointFile(ctx, f); err != nil && ctx.Err() == nil {
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

// checkpointFile checkpoints the file's log if another connection committed
// since its last complete checkpoint, and says whether it did.
func (o openFiles) checkpointFile(ctx context.Context, path string) (checkpointed bool, err error) {
	info, err := os.Stat(path)
	if f, ok := o[path]; ok && (err != nil || !os.SameFile(f.info, info)) {
		_ = f.db.Close() // dropped, or dropped and made again
		delete(o, path)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // dropped meanwhile
	}
	if err != nil {
		return false, err
	}
	f, ok := o[path]
	if !ok {
		db, err := openDatabaseFile(path)
		if err != nil {
			return false, err
		}
		f = openFile{db: db, info: info, settled: -1}
	}
	defer func() { o[path] = f }()
	var data int64
	if err := f.db.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&data); err != nil {
		return false, err
	}
	if data == f.settled {
		return false, nil
	}
	complete, err := checkpoint(ctx, f.db)
	if err != nil {
		return false, err
	}
	f.settled = -1
	if complete {
		f.settled = data
	}
	return true, nil
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

// checkpointLoop keeps the write-ahead logs checkpointed until ctx ends.
func checkpointLoop(ctx context.Context, dir string, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	open := openFiles{}
	defer open.close()
	for {
		_ = open.checkpointAll(ctx, dir)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

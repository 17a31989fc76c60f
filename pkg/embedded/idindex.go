package embedded

import (
	"context"
	"database/sql"
	"fmt"
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
	files, err := filepath.Glob(filepath.Join(dir, "*.sqlite"))
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := indexFile(ctx, f); err != nil && ctx.Err() == nil {
			return fmt.Errorf("%s: %w", filepath.Base(f), err)
		}
	}
	return nil
}

func indexFile(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err != nil {
		return nil // dropped meanwhile
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
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

// indexLoop keeps new collections indexed until ctx ends.
func indexLoop(ctx context.Context, dir string, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		_ = indexIDs(ctx, dir)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

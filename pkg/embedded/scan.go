package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.mongodb.org/mongo-driver/bson"
)

// Scan calls each with every document of collection coll of database db,
// read straight from FerretDB's SQLite file in one read transaction (a
// consistent view, as FerretDB's own find of the whole collection is),
// in the order FerretDB's find without a sort gives. It is how the
// in-memory copies fill after a crash (mongox.Scanner): FerretDB v1
// spends about 120 µs per document of a scan building and encoding it,
// most of a start after kill -9. A database or collection that does not
// exist has no documents. The document passed to each is valid only
// during the call.
func (m *Mongo) Scan(ctx context.Context, db, coll string, each func(bson.Raw) error) error {
	path := filepath.Join(m.dir, db+".sqlite")
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil // FerretDB creates the file with the first collection
	}
	conn, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=query_only(1)")
	if err != nil {
		return err
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("scan %s.%s: %w", db, coll, err)
	}
	defer func() { _ = tx.Rollback() }()
	var table string
	err = tx.QueryRowContext(ctx, `SELECT table_name FROM "_ferretdb_collections" WHERE name = ?`, coll).Scan(&table)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("scan %s.%s: %w", db, coll, err)
	}
	rows, err := tx.QueryContext(ctx, fmt.Sprintf(`SELECT _ferretdb_sjson FROM %q`, table))
	if err != nil {
		return fmt.Errorf("scan %s.%s: %w", db, coll, err)
	}
	defer rows.Close()
	cache := schemas{}
	var row sql.RawBytes
	var doc []byte
	for rows.Next() {
		if err := rows.Scan(&row); err != nil {
			return fmt.Errorf("scan %s.%s: %w", db, coll, err)
		}
		if doc, err = cache.toBSON(doc[:0], row); err != nil {
			return fmt.Errorf("scan %s.%s: %w", db, coll, err)
		}
		if err := each(doc); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("scan %s.%s: %w", db, coll, err)
	}
	return nil
}

package mongox

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
	"go.mongodb.org/mongo-driver/x/bsonx/bsoncore"
)

// Scanner reads every document of a collection without the database
// server: the embedded FerretDB's files (embedded.Mongo.Scan), read in
// this process. A scan through FerretDB v1 costs it about 120 µs per
// document (it builds each one as boxed values, encodes it for the wire,
// and the driver decodes it again), which is most of a start after a
// crash, when every in-memory copy is a scan.
type Scanner interface {
	// Scan calls each with every document of collection coll of
	// database db, as one consistent read; the document is valid only
	// during the call.
	Scan(ctx context.Context, db, coll string, each func(bson.Raw) error) error
}

// UseScanner makes ScanAll read d's collections with s. Only the only
// writer of the database may (an Exclusive DB): s reads what is stored,
// and FerretDB's answer to a find is what it stored.
func (d *DB) UseScanner(s Scanner) {
	if d.Exclusive() {
		d.scanner = s
	}
}

// ScanAll is every document of coll, the collection m copies, decoded into T,
// with the top-level fields that projection names left out (every value
// 0) or only those kept, with _id (every value 1): the rows that a Mirror's
// load needs, as FindAll with that projection would give them. It reads
// with the database's Scanner when it has one, and finds otherwise.
func ScanAll[T, R any](ctx context.Context, m *Mirror[R], coll *mongo.Collection, projection bson.M) ([]T, error) {
	keep, drop, ok := topLevel(projection)
	if m == nil || m.db == nil || m.db.scanner == nil || coll.Database().Name() != m.db.Name() || !ok {
		return findAllProjected[T](ctx, coll, projection)
	}
	out := []T{}
	var buf []byte
	err := m.db.scanner.Scan(ctx, m.db.Name(), coll.Name(), func(doc bson.Raw) error {
		if keep != nil || drop != nil {
			buf = project(buf[:0], doc, keep, drop)
			doc = buf
		}
		var v T
		if err := bson.Unmarshal(doc, &v); err != nil {
			return fmt.Errorf("decode %s: %w", coll.Name(), err)
		}
		out = append(out, v)
		return nil
	})
	if err != nil && ctx.Err() == nil {
		// A row the Scanner cannot read, or files it does not know: the
		// find reads the same documents through the database (slower, and
		// a document T cannot hold fails there as well).
		return findAllProjected[T](ctx, coll, projection)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", coll.Name(), err)
	}
	return out, nil
}

func findAllProjected[T any](ctx context.Context, coll *mongo.Collection, projection bson.M) ([]T, error) {
	opts := options.Find()
	if len(projection) > 0 {
		opts.SetProjection(projection)
	}
	return FindAll[T](ctx, coll, bson.M{}, opts)
}

// topLevel reads a projection of top-level fields: all kept (keep) or all
// left out (drop); ok is false for anything else (FindAll applies it).
func topLevel(projection bson.M) (keep, drop map[string]bool, ok bool) {
	for k, v := range projection {
		var on bool
		switch v := v.(type) {
		case int:
			on = v != 0
		case int32:
			on = v != 0
		case int64:
			on = v != 0
		case bool:
			on = v
		default:
			return nil, nil, false
		}
		for i := 0; i < len(k); i++ {
			if k[i] == '.' || k[i] == '$' {
				return nil, nil, false
			}
		}
		if k == "_id" {
			return nil, nil, false // MongoDB's rules for _id differ; not needed
		}
		if on {
			if keep == nil {
				keep = map[string]bool{"_id": true}
			}
			keep[k] = true
		} else {
			if drop == nil {
				drop = map[string]bool{}
			}
			drop[k] = true
		}
	}
	if keep != nil && drop != nil {
		return nil, nil, false
	}
	return keep, drop, true
}

// project appends to dst doc without the fields drop names, or with only
// those keep names.
func project(dst []byte, doc bson.Raw, keep, drop map[string]bool) []byte {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	elems, _ := bsoncore.Document(doc).Elements()
	for _, e := range elems {
		k := e.Key()
		if drop[k] || (keep != nil && !keep[k]) {
			continue
		}
		dst = append(dst, e...)
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// ScanRaw calls each with every document of collection coll through the
// database's Scanner, as one consistent read; false (and nothing called)
// when the database has none. The document is valid only during the call.
func (d *DB) ScanRaw(ctx context.Context, coll string, each func(bson.Raw) error) (bool, error) {
	if d == nil || d.scanner == nil {
		return false, nil
	}
	return true, d.scanner.Scan(ctx, d.Name(), coll, each)
}

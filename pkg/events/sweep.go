package events

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
)

// A sweep through FerretDB v1 decodes every document of the collection to
// test the filter (about 120 µs each): after a crash of a world with
// 100,000 tickets that was minutes of a core after the start, and a clean
// stop soon after could run out of time in it. When the database reads
// its collections in process (mongox.Scanner) the sweep finds the
// documents with outbox entries there, in one consistent read, and
// publishes them as notified ones: each read again by _id, under the
// same rules. An entry written after the read was notified by its writer.

// scanSweep publishes the outbox entries of coll found by a scan of the
// database's files; ok is false when the database has no Scanner.
// A scan that fails before it found anything (a row it cannot read, files
// it does not know) leaves the sweep to the find, which reads through
// FerretDB; only a cancelled ctx ends it.
func (r *Relay) scanSweep(ctx context.Context, coll *mongo.Collection) (sent int, ok bool, err error) {
	if coll.Database().Name() != r.db.Name() {
		return 0, false, nil // the Scanner reads r.db's files only
	}
	var ids []string
	ok, err = r.db.ScanRaw(ctx, coll.Name(), func(doc bson.Raw) error {
		v, err := doc.LookupErr(OutboxField)
		if err != nil {
			return nil //nolint:nilerr // a document without an outbox has nothing to sweep
		}
		if arr, isArr := v.ArrayOK(); isArr {
			if vals, _ := arr.Values(); len(vals) == 0 {
				return nil
			}
		}
		id, isString := doc.Lookup("_id").StringValueOK()
		if !isString {
			return fmt.Errorf("sweep %s: a document with outbox entries has a _id that is not a string", coll.Name())
		}
		ids = append(ids, id)
		return nil
	})
	if !ok {
		return 0, false, nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return 0, true, err
		}
		return 0, false, nil
	}
	for len(ids) > 0 {
		batch := ids[:min(len(ids), 200)]
		ids = ids[len(batch):]
		docs, err := r.byID(ctx, coll, batch)
		if err != nil {
			return sent, true, err
		}
		n, err := r.publish(ctx, coll, docs)
		sent += n
		if err != nil {
			return sent, true, err
		}
	}
	return sent, true, nil
}

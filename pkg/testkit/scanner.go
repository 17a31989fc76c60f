package testkit

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/mongox"
)

// Finder is a mongox.Scanner that reads through the database server, so
// that tests of what reads with a Scanner run on either backend. It counts
// its scans; with Fail set a scan stops with an error after its first
// document, as a row the embedded database's reader cannot read would.
type Finder struct {
	DB    *mongox.DB
	Scans int
	Fail  bool
}

// Scan calls each with every document of coll, in the server's order.
func (f *Finder) Scan(ctx context.Context, _, coll string, each func(bson.Raw) error) error {
	f.Scans++
	cur, err := f.DB.Collection(coll).Find(ctx, bson.M{})
	if err != nil {
		return err
	}
	defer cur.Close(ctx)
	for cur.Next(ctx) {
		if err := each(cur.Current); err != nil {
			return err
		}
		if f.Fail {
			return errors.New("a row of an unknown shape")
		}
	}
	return cur.Err()
}

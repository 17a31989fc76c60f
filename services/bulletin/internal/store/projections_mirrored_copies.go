package store

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// recordMirror is the in-memory copy of one kind's stored records,
// MirroredProjections' copy of that kind. It holds the whole documents,
// not only their revisions: the aggregator's start restores every record,
// and a copy of whole documents is one the snapshot of a clean stop keeps,
// so a clean start reads the records from the snapshot instead of scanning
// the projections (at 10,000 citizens, some 130,000 documents on FerretDB).
type recordMirror interface {
	// load fills the copy (from the snapshot, or one scan of coll) the
	// first time, and hands every record to restore.
	load(ctx context.Context, coll *mongo.Collection, restore func(domain.Record)) error
	// rev is the stored revision of the record with key.
	rev(key string) (uint64, bool)
	// put records that r was stored (its document lock held).
	put(r domain.Record)
	// clear empties the copy (the projections were dropped).
	clear()
}

// storedDoc is a projection document as its Mirror keeps it.
type storedDoc interface {
	recordDoc
	key() string
	revision() uint64
}

func (d citizenDoc) key() string      { return d.ID }
func (d plotDoc) key() string         { return d.ID }
func (d ticketDoc) key() string       { return d.ID }
func (d proposalDoc) key() string     { return d.ID }
func (d electionDoc) key() string     { return d.ID }
func (d stewardDoc) key() string      { return d.ID }
func (d announcementDoc) key() string { return d.ID }
func (d gardenDoc) key() string       { return d.ID }

func (d citizenDoc) revision() uint64      { return d.Rev }
func (d plotDoc) revision() uint64         { return d.Rev }
func (d ticketDoc) revision() uint64       { return d.Rev }
func (d proposalDoc) revision() uint64     { return d.Rev }
func (d electionDoc) revision() uint64     { return d.Rev }
func (d stewardDoc) revision() uint64      { return d.Rev }
func (d announcementDoc) revision() uint64 { return d.Rev }
func (d gardenDoc) revision() uint64       { return d.Rev }

// copyOf is kind k's copy on db, which must be exclusive.
func copyOf(db *mongox.DB, k domain.RecordKind) recordMirror {
	coll := projectionCollections[k]
	switch k {
	case domain.KindCitizen:
		return docMirrorOf[citizenDoc](db, coll)
	case domain.KindPlot:
		return docMirrorOf[plotDoc](db, coll)
	case domain.KindTicket:
		return docMirrorOf[ticketDoc](db, coll)
	case domain.KindProposal:
		return docMirrorOf[proposalDoc](db, coll)
	case domain.KindElection:
		return docMirrorOf[electionDoc](db, coll)
	case domain.KindSteward:
		return docMirrorOf[stewardDoc](db, coll)
	case domain.KindAnnouncement:
		return docMirrorOf[announcementDoc](db, coll)
	case domain.KindGarden:
		return docMirrorOf[gardenDoc](db, coll)
	}
	panic(fmt.Sprintf("projection mirror: unknown record kind %q", k))
}

type docMirror[D storedDoc] struct{ m *mongox.Mirror[D] }

func docMirrorOf[D storedDoc](db *mongox.DB, coll string) docMirror[D] {
	return docMirror[D]{mongox.MirrorOf(db, coll, func(d *D) string { return (*d).key() })}
}

func (d docMirror[D]) load(ctx context.Context, coll *mongo.Collection, restore func(domain.Record)) error {
	err := d.m.Load(ctx, func(ctx context.Context) ([]D, error) {
		return mongox.ScanAll[D](ctx, d.m, coll, nil)
	})
	if err != nil {
		return fmt.Errorf("load %s records: %w", coll.Name(), err)
	}
	d.m.Scan(func(doc *D) bool {
		restore((*doc).record())
		return true
	})
	return nil
}

func (d docMirror[D]) rev(key string) (uint64, bool) {
	doc, ok := d.m.Get(key)
	if !ok {
		return 0, false
	}
	return (*doc).revision(), true
}

func (d docMirror[D]) put(r domain.Record) { d.m.Put(toDoc(r).(D)) }

func (d docMirror[D]) clear() { d.m.Reset(nil) }

package testkit

import (
	"testing"

	"sharedworld.dev/pkg/mongox"
)

// EachAdapter runs a store's repository contract once per adapter, each on
// a kit of its own: the MongoDB adapter on the database in the kit's mode
// (SHAREDWORLD_TEST_BACKEND), and the mirrored adapter on an exclusive view
// of its database — the only writer, as on the embedded default — so every
// rule is held by both, in both test modes. open builds the adapter on a
// fresh view of the database each call, as a restarted process would.
func EachAdapter[R any](t *testing.T, mongo, mirrored func(db *mongox.DB) R, contract func(t *testing.T, kit *Kit, open func() R)) {
	t.Helper()
	t.Run("mongodb", func(t *testing.T) {
		kit := New(t)
		contract(t, kit, func() R { return mongo(kit.view(kit.DB.Mode())) })
	})
	t.Run("mirrored", func(t *testing.T) {
		kit := New(t)
		contract(t, kit, func() R { return mirrored(kit.ExclusiveDB()) })
	})
}

// ExclusiveDB is a fresh view of the kit's database as its only writer sees
// it, whatever the kit's mode: what a mirrored adapter is given.
func (k *Kit) ExclusiveDB() *mongox.DB { return k.view(mongox.Exclusive) }

// SharedDB is a fresh view of the kit's database as one of several replicas
// sees it (a process of its own: its own locks), whatever the kit's mode.
func (k *Kit) SharedDB() *mongox.DB { return k.view(mongox.Shared) }

func (k *Kit) view(mode mongox.Mode) *mongox.DB {
	db := mongox.NewDB(k.DB.Database, mode)
	if mongoServer != nil {
		// as the local runner does: copies fill from FerretDB's files
		db.UseScanner(mongoServer)
	}
	return db
}

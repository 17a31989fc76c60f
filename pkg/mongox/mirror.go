package mongox

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Mirror is an in-memory copy of a collection's rows (each store picks the
// row type: the document, or a projection of it with precomputed keys), by
// _id and in the list orders the store declares. A store keeps one only on
// an Exclusive database: FerretDB v1, the embedded default, serves nothing
// but exact _id lookups from an index and decodes the whole collection for
// any other filter, sort or count, whereas this process, as the only
// writer, sees every write and can keep the copy exactly coherent. The
// store fills it at start (Reset, one scan) and reports each write while it
// still holds the document's lock (Put, Delete; Docs.Written does it for
// Docs), so the copy never lags behind a write that has been answered.
// On a Shared database the store queries MongoDB, whose indexes serve the
// same orders, and no Mirror exists: other replicas' writes never reach it.
//
// Rows are immutable once put: readers get pointers into the copy and must
// not change what they point at; a change is a Put of a new row.
//
// One collection of one DB has one Mirror (MirrorOf), whichever stores of
// the process write it.
type Mirror[R any] struct {
	id     func(*R) string
	mu     sync.RWMutex
	rows   map[string]*R
	orders map[string]*Order[R]
	// postings are the keyed orders (Postings), by name; indexes is every
	// order and postings, which each write keeps.
	postings map[string]*Postings[R]
	keepers  map[string]Keeper[R]
	indexes  []index[R]
	loaded   atomic.Bool
	// db and coll say where the copy comes from (MirrorOf), for the
	// snapshot of a clean stop (snapshot.go); nil for a NewMirror.
	db   *DB
	coll string
	// early says a write was reported before Load: the snapshot (taken
	// before that write) no longer holds, only a scan does.
	early bool
}

// MirrorOf is the Mirror of collection coll of db, made on first use with
// rows keyed by id; nil when db is not Exclusive. Every store of the
// process gets the same one for a collection (so a write through any of
// them reaches it); the row type of a collection is the same for all.
func MirrorOf[R any](db *DB, coll string, id func(*R) string) *Mirror[R] {
	if !db.Exclusive() {
		return nil
	}
	// Stores look their copy up on every write they apply: the lookup
	// allocates nothing once the copy exists.
	if m, ok := db.mirrors.Load(coll); ok {
		return m.(*Mirror[R])
	}
	fresh := NewMirror(id)
	fresh.db, fresh.coll = db, coll
	m, _ := db.mirrors.LoadOrStore(coll, fresh)
	return m.(*Mirror[R])
}

// Order is one list order of a Mirror: the rows keep selects, sorted by
// cmp, which must be total (end with the _id) so that a row has one place.
type Order[R any] struct {
	m    *Mirror[R]
	cmp  func(a, b *R) int
	keep func(*R) bool
	rows []*R
}

// NewMirror makes an empty copy whose rows are keyed by id.
func NewMirror[R any](id func(*R) string) *Mirror[R] {
	return &Mirror[R]{id: id, rows: map[string]*R{}, orders: map[string]*Order[R]{}, postings: map[string]*Postings[R]{}}
}

// index is what a write keeps up to date: an Order or a Postings.
type index[R any] interface {
	add(r *R)
	remove(r *R)
	// replace puts r where old was: in place when r sorts where old
	// did (a change of fields the index ignores, as presence), which
	// moves no other row.
	replace(old, r *R)
	reset(rows map[string]*R)
}

// Order declares the list order name: the rows keep selects (nil: every
// row) sorted by cmp. A name declared before returns the order it names.
func (m *Mirror[R]) Order(name string, cmp func(a, b *R) int, keep func(*R) bool) *Order[R] {
	m.mu.Lock()
	defer m.mu.Unlock()
	if o, ok := m.orders[name]; ok {
		return o
	}
	o := &Order[R]{m: m, cmp: cmp, keep: keep}
	o.reset(m.rows)
	m.orders[name] = o
	m.indexes = append(m.indexes, o)
	return o
}

// Load fills the copy from the database with load (one scan) the first
// time it is called, and does nothing after that. Writes wait while it
// loads: one that the scan missed is reported after it, and one it saw is
// reported again, which changes nothing. When the database's previous run
// stopped cleanly and left a snapshot of this copy that still holds
// (DB.OpenSnapshot), the copy is read from it instead of scanned.
//
// While the host builds its services (DB.LoadInBackground) the scan runs
// in the background: Load returns at once, and the copy's lock, taken
// here, is held until the copy is filled, so every read and write of it
// waits as it would for a scan in place. Loads.Wait reports a failure.
func (m *Mirror[R]) Load(ctx context.Context, load func(ctx context.Context) ([]R, error)) error {
	if m.loaded.Load() {
		return nil
	}
	m.mu.Lock()
	if m.loaded.Load() {
		m.mu.Unlock()
		return nil
	}
	if l := m.db.backgroundLoads(); l != nil && l.start(ctx, func() error {
		defer m.mu.Unlock()
		return m.fill(ctx, load)
	}) {
		return nil
	}
	defer m.mu.Unlock()
	return m.fill(ctx, load)
}

// fill loads the copy; the caller holds its lock.
func (m *Mirror[R]) fill(ctx context.Context, load func(ctx context.Context) ([]R, error)) error {
	start := time.Now()
	rows, restored := restoreRows[R](m.db, m.coll, m.early)
	if !restored {
		var err error
		if rows, err = load(ctx); err != nil {
			return fmt.Errorf("load the in-memory copy of %s: %w", m.coll, err)
		}
	}
	m.reset(rows)
	m.loaded.Store(true)
	m.db.loaded(m.coll, len(rows), restored, time.Since(start))
	return nil
}

// Reset replaces every row (the scan at start), sorting each order once.
func (m *Mirror[R]) Reset(rows []R) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reset(rows)
}

func (m *Mirror[R]) reset(rows []R) {
	defer m.loaded.Store(true)
	m.rows = make(map[string]*R, len(rows))
	for i := range rows {
		r := &rows[i]
		m.rows[m.id(r)] = r
	}
	for _, ix := range m.indexes {
		ix.reset(m.rows)
	}
}

// Put stores r, replacing the row with its id.
func (m *Mirror[R]) Put(r R) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.put(r)
}

func (m *Mirror[R]) put(r R) {
	m.early = m.early || !m.loaded.Load()
	id := m.id(&r)
	old, ok := m.rows[id]
	m.rows[id] = &r
	for _, ix := range m.indexes {
		if ok {
			ix.replace(old, &r)
		} else {
			ix.add(&r)
		}
	}
}

// Change replaces the row with id by fn's change of a copy of it, if there
// is one; fn returning false leaves it as it was.
func (m *Mirror[R]) Change(id string, fn func(*R) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.early = m.early || !m.loaded.Load()
	old, ok := m.rows[id]
	if !ok {
		return
	}
	r := *old
	if fn(&r) {
		m.put(r)
	}
}

// Delete removes the row with id, if there is one.
func (m *Mirror[R]) Delete(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.early = m.early || !m.loaded.Load()
	old, ok := m.rows[id]
	if !ok {
		return
	}
	delete(m.rows, id)
	for _, ix := range m.indexes {
		ix.remove(old)
	}
}

// DeleteWhere removes every row match selects (the copy of a DeleteMany
// with the same filter) and returns how many it removed.
func (m *Mirror[R]) DeleteWhere(match func(*R) bool) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.early = m.early || !m.loaded.Load()
	n := 0
	for id, r := range m.rows {
		if !match(r) {
			continue
		}
		delete(m.rows, id)
		for _, ix := range m.indexes {
			ix.remove(r)
		}
		n++
	}
	return n
}

// Get returns the row with id (read-only).
func (m *Mirror[R]) Get(id string) (*R, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	r, ok := m.rows[id]
	return r, ok
}

// Len is the number of rows.
func (m *Mirror[R]) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.rows)
}

// Scan calls fn on every row in no particular order until fn returns false.
func (m *Mirror[R]) Scan(fn func(*R) bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	for _, r := range m.rows {
		if !fn(r) {
			return
		}
	}
}

func (o *Order[R]) reset(rows map[string]*R) {
	o.rows = o.rows[:0]
	for _, r := range rows {
		if o.keep == nil || o.keep(r) {
			o.rows = append(o.rows, r)
		}
	}
	slices.SortFunc(o.rows, o.cmp)
}

func (o *Order[R]) add(r *R) {
	if o.keep != nil && !o.keep(r) {
		return
	}
	i, _ := slices.BinarySearchFunc(o.rows, r, o.cmp)
	o.rows = slices.Insert(o.rows, i, r)
}

func (o *Order[R]) remove(r *R) {
	if o.keep != nil && !o.keep(r) {
		return
	}
	if i, found := slices.BinarySearchFunc(o.rows, r, o.cmp); found && o.rows[i] == r {
		o.rows = slices.Delete(o.rows, i, i+1)
	}
}

func (o *Order[R]) replace(old, r *R) {
	if o.keep == nil || o.keep(old) && o.keep(r) {
		if o.cmp(old, r) == 0 && swap(o.rows, old, r, o.cmp) {
			return
		}
	}
	o.remove(old)
	o.add(r)
}

// swap puts r in the place of old in rows sorted by cmp, where r sorts
// as old does; false when old is not there.
func swap[R any](rows []*R, old, r *R, cmp func(a, b *R) int) bool {
	i, found := slices.BinarySearchFunc(rows, old, cmp)
	if !found || rows[i] != old {
		return false
	}
	rows[i] = r
	return true
}

// Len is the number of rows in the order.
func (o *Order[R]) Len() int {
	o.m.mu.RLock()
	defer o.m.mu.RUnlock()
	return len(o.rows)
}

// Ascend calls fn on the rows in order, starting at the first row for
// which from is true (from must be false, then true along the order; nil:
// the first row), until fn returns false. A page after a cursor is a
// binary search, never a walk from the start.
func (o *Order[R]) Ascend(from func(*R) bool, fn func(*R) bool) {
	o.m.mu.RLock()
	defer o.m.mu.RUnlock()
	i := 0
	if from != nil {
		i, _ = slices.BinarySearchFunc(o.rows, true, func(r *R, _ bool) int {
			if from(r) {
				return 1
			}
			return -1
		})
	}
	for ; i < len(o.rows); i++ {
		if !fn(o.rows[i]) {
			return
		}
	}
}

// AscendAt calls fn on the rows in order from the one at position from
// (0: the first; an offset page) until fn returns false, and returns the
// number of rows in the order when fn was called.
func (o *Order[R]) AscendAt(from int, fn func(*R) bool) int {
	o.m.mu.RLock()
	defer o.m.mu.RUnlock()
	return ascendAt(o.rows, from, fn)
}

// Descend calls fn on the rows in reverse order, starting at the last row
// for which below is true (below must be true, then false along the order;
// nil: the last row), until fn returns false.
func (o *Order[R]) Descend(below func(*R) bool, fn func(*R) bool) {
	o.m.mu.RLock()
	defer o.m.mu.RUnlock()
	i := len(o.rows)
	if below != nil {
		i, _ = slices.BinarySearchFunc(o.rows, true, func(r *R, _ bool) int {
			if below(r) {
				return -1
			}
			return 1
		})
	}
	for i--; i >= 0; i-- {
		if !fn(o.rows[i]) {
			return
		}
	}
}

// MirrorCache answers Docs.Cache from a Mirror whose rows are the documents
// themselves, once it is loaded (before that, and while it loads, the
// database answers). version reads a row's version field. The row is
// copied, so its fields may be set; a row type with slices or maps must be
// changed by building new ones, never in place.
func MirrorCache[T any](m *Mirror[T], version func(*T) int64) func(id string) (T, int64, bool, bool) {
	return func(id string) (T, int64, bool, bool) {
		var zero T
		if !m.loaded.Load() {
			return zero, 0, false, false
		}
		r, found := m.Get(id)
		if !found {
			return zero, 0, false, true
		}
		return *r, version(r), true, true
	}
}

package mongox

// Keeper is an index a store keeps beside a Mirror's own orders, for a
// question no sorted list answers cheaply (the nearest free cell of a
// grid, the matches of a search term): the Mirror calls it on every write
// while it holds the copy's write lock, so the keeper changes with the
// copy, never behind it. A keeper reads its own state inside View.
type Keeper[R any] interface {
	// Add is a new row; Remove a row deleted.
	Add(r *R)
	Remove(r *R)
	// Replace is the row old changed to r (same id).
	Replace(old, r *R)
	// Reset is every row at once (the load at start).
	Reset(rows map[string]*R)
}

// keeper adapts a Keeper to the Mirror's indexes.
type keeper[R any] struct{ k Keeper[R] }

func (k keeper[R]) add(r *R)                 { k.k.Add(r) }
func (k keeper[R]) remove(r *R)              { k.k.Remove(r) }
func (k keeper[R]) replace(old, r *R)        { k.k.Replace(old, r) }
func (k keeper[R]) reset(rows map[string]*R) { k.k.Reset(rows) }

// Keep declares the keeper name, made by fresh and kept from then on,
// starting from the rows the copy holds. A name declared before returns
// the keeper it names (every store of the collection shares it).
func (m *Mirror[R]) Keep(name string, fresh func() Keeper[R]) Keeper[R] {
	m.mu.Lock()
	defer m.mu.Unlock()
	if k, ok := m.keepers[name]; ok {
		return k
	}
	if m.keepers == nil {
		m.keepers = map[string]Keeper[R]{}
	}
	k := fresh()
	k.Reset(m.rows)
	m.keepers[name] = k
	m.indexes = append(m.indexes, keeper[R]{k})
	return k
}

// View runs read under the copy's read lock: the state of every keeper
// then is that of one moment of the copy, no write half applied.
func (m *Mirror[R]) View(read func()) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	read()
}

// Viewed is the order's rows, for a reader inside View: no lock is taken
// (View holds it), and the slice must be neither kept past View nor changed.
func (o *Order[R]) Viewed() []*R { return o.rows }

// Viewed is the rows under key, for a reader inside View, as
// Order.Viewed.
func (p *Postings[R]) Viewed(key string) []*R { return p.lists[key] }

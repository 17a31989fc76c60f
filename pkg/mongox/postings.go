package mongox

import "slices"

// Postings is a list order split by key, an inverted index kept in list
// order: under each key, the rows whose keys hold it, sorted by cmp. It
// answers what the database answers from a multikey index (a tag, an
// interest) without walking the rows that lack the key, and counts them
// without a walk. A store that matches text can key rows by their
// substrings (trigrams) and walk only the rows that may match.
type Postings[R any] struct {
	m     *Mirror[R]
	cmp   func(a, b *R) int
	keys  func(to []string, r *R) []string
	lists map[string][]*R
	// was and is hold the keys of a write's old and new row: writes hold
	// the copy's lock, so one pair serves them all without garbage
	was, is []string
}

// Postings declares the keyed order name: each row under every key keys
// appends to its first argument (none: the row is under no key; a key
// twice counts once),
// sorted by cmp, which must be total (end with the _id). A name declared
// before returns the postings it names.
func (m *Mirror[R]) Postings(name string, keys func(to []string, r *R) []string, cmp func(a, b *R) int) *Postings[R] {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p, ok := m.postings[name]; ok {
		return p
	}
	p := &Postings[R]{m: m, cmp: cmp, keys: keys}
	p.reset(m.rows)
	m.postings[name] = p
	m.indexes = append(m.indexes, p)
	return p
}

func (p *Postings[R]) reset(rows map[string]*R) {
	p.lists = map[string][]*R{}
	for _, r := range rows {
		p.is = p.keys(p.is[:0], r)
		for _, k := range p.is {
			p.lists[k] = append(p.lists[k], r)
		}
	}
	for k, list := range p.lists {
		slices.SortFunc(list, p.cmp)
		p.lists[k] = slices.CompactFunc(list, func(a, b *R) bool { return a == b })
	}
}

func (p *Postings[R]) add(r *R) {
	p.is = p.keys(p.is[:0], r)
	for _, k := range p.is {
		list := p.lists[k]
		i, found := slices.BinarySearchFunc(list, r, p.cmp)
		if !found {
			p.lists[k] = slices.Insert(list, i, r)
		}
	}
}

func (p *Postings[R]) remove(r *R) {
	p.was = p.keys(p.was[:0], r)
	for _, k := range p.was {
		list := p.lists[k]
		i, found := slices.BinarySearchFunc(list, r, p.cmp)
		if !found || list[i] != r {
			continue
		}
		if len(list) == 1 {
			delete(p.lists, k)
		} else {
			p.lists[k] = slices.Delete(list, i, i+1)
		}
	}
}

func (p *Postings[R]) replace(old, r *R) {
	if p.cmp(old, r) == 0 {
		p.was, p.is = p.keys(p.was[:0], old), p.keys(p.is[:0], r)
		if slices.Equal(p.was, p.is) {
			// the same keys and place: swap the row in each list, moving none
			for _, k := range p.is {
				swap(p.lists[k], old, r, p.cmp)
			}
			return
		}
	}
	p.remove(old)
	p.add(r)
}

// Len is the number of rows under key.
func (p *Postings[R]) Len(key string) int {
	p.m.mu.RLock()
	defer p.m.mu.RUnlock()
	return len(p.lists[key])
}

// Ascend calls fn on the rows under key in order, from the one at
// position from (0: the first), until fn returns false, and returns the
// number of rows under key, as they were when fn was called (a page and
// its total from one state of the copy).
func (p *Postings[R]) Ascend(key string, from int, fn func(*R) bool) int {
	p.m.mu.RLock()
	defer p.m.mu.RUnlock()
	return ascendAt(p.lists[key], from, fn)
}

func ascendAt[R any](rows []*R, from int, fn func(*R) bool) int {
	for i := max(from, 0); i < len(rows); i++ {
		if !fn(rows[i]) {
			break
		}
	}
	return len(rows)
}

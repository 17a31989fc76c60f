package domain

import "slices"

// topK keeps the first k records of a projection's map in the order
// before, among those keep selects, as the records change: the bulletin
// shows the newest citizens, the first plots and the newest open tickets,
// and walking every record on each rendering cost time in proportion to
// the world (a world of 100,000 tickets spent most of each rendering
// there). A change costs O(k); only a change that takes a record out of a
// full list (or moves it towards its end) leaves the list stale, to be
// selected again from every record at the next rendering (firstK).
type topK[T any] struct {
	k      int
	before func(a, b T) bool
	keep   func(T) bool
	key    func(T) string
	items  []T // the first min(k, kept) records in order, unless stale
	stale  bool
}

func newTopK[T any](k int, before func(a, b T) bool, keep func(T) bool, key func(T) string) *topK[T] {
	return &topK[T]{k: k, before: before, keep: keep, key: key}
}

// update takes in the change of one record from old to next (old is the
// zero record when there was none).
func (t *topK[T]) update(old, next T) {
	if t.stale {
		return
	}
	full := len(t.items) == t.k
	if i := slices.IndexFunc(t.items, func(v T) bool { return t.key(v) == t.key(old) }); i >= 0 {
		t.items = slices.Delete(t.items, i, i+1)
		if !t.keep(next) {
			// A record outside the list may take its place.
			t.stale = full
			return
		}
		at := t.insert(next)
		// Moved to the end of a full list: a record outside may come first.
		t.stale = full && at == len(t.items)-1
		return
	}
	if !t.keep(next) {
		return
	}
	if len(t.items) < t.k || t.before(next, t.items[len(t.items)-1]) {
		t.insert(next)
		if len(t.items) > t.k {
			t.items = t.items[:t.k]
		}
	}
}

func (t *topK[T]) insert(v T) int {
	i, _ := slices.BinarySearchFunc(t.items, v, func(a, b T) int {
		if t.before(a, b) {
			return -1
		}
		if t.before(b, a) {
			return 1
		}
		return 0
	})
	t.items = slices.Insert(t.items, i, v)
	return i
}

// list returns the kept records, selecting them from all when stale.
func (t *topK[T]) list(all func() []T) []T {
	if t.stale {
		t.items, t.stale = all(), false
	}
	return t.items
}

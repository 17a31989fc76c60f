package store

import (
	"slices"
	"strings"
	"sync"

	"sharedworld.dev/pkg/mongox"
)

// maxSearches is how many searches the copy keeps answered: enough for
// the terms a world shares (a profession, a place), few enough that a
// write, which checks itself against each, stays a few microseconds.
const maxSearches = 64

// searchKey is one directory search: its folded needle and interest.
type searchKey struct{ search, interest string }

// matches reports whether r is one of the search's matches, as the
// MongoDB filter selects them: listed, the needle in the name or the
// bio, and the interest among the interests when one is asked for.
func (k searchKey) matches(r *citizenRow) bool {
	return r.listed() && (strings.Contains(r.FoldedName, k.search) || strings.Contains(r.FoldedBio, k.search)) &&
		(k.interest == "" || hasInterest(r.FoldedInterests, k.interest))
}

// searches keeps the matches of the latest directory searches in
// directory order, so that a page at any offset and the total are a slice
// and its length: without them a common term ("gardener", a third of the
// world) walked every match on every page to count them. A search is
// answered once by walking its candidates, and from then on every write
// that makes or unmakes a match moves it in the list (the Mirror calls
// the Keeper methods under its write lock). The least recently asked
// search makes room for a new one.
type searches struct {
	cmp func(a, b *citizenRow) int
	// mu guards lists and used between readers, which all hold the copy's
	// read lock; writers hold its write lock and so are alone.
	mu    sync.Mutex
	lists map[searchKey]*searchList
	tick  uint64
}

type searchList struct {
	rows []*citizenRow
	used uint64
}

var _ mongox.Keeper[citizenRow] = (*searches)(nil)

func newSearches(cmp func(a, b *citizenRow) int) *searches {
	return &searches{cmp: cmp, lists: map[searchKey]*searchList{}}
}

func (s *searches) Add(r *citizenRow) {
	for k, l := range s.lists {
		if k.matches(r) {
			i, _ := slices.BinarySearchFunc(l.rows, r, s.cmp)
			l.rows = slices.Insert(l.rows, i, r)
		}
	}
}

func (s *searches) Remove(r *citizenRow) {
	for k, l := range s.lists {
		if k.matches(r) {
			l.remove(r, s.cmp)
		}
	}
}

func (l *searchList) remove(r *citizenRow, cmp func(a, b *citizenRow) int) {
	if i, found := slices.BinarySearchFunc(l.rows, r, cmp); found && l.rows[i] == r {
		l.rows = slices.Delete(l.rows, i, i+1)
	}
}

// Replace moves r into old's place where both match and sort alike (a
// presence write, the most frequent), and otherwise out and in.
func (s *searches) Replace(old, r *citizenRow) {
	same := s.cmp(old, r) == 0
	for k, l := range s.lists {
		was, is := k.matches(old), k.matches(r)
		if was && is && same && swap(l.rows, old, r, s.cmp) {
			continue
		}
		if was {
			l.remove(old, s.cmp)
		}
		if is {
			i, _ := slices.BinarySearchFunc(l.rows, r, s.cmp)
			l.rows = slices.Insert(l.rows, i, r)
		}
	}
}

// Reset forgets every search: the rows they held are gone.
func (s *searches) Reset(map[string]*citizenRow) { clear(s.lists) }

// answered returns the search's matches, or answer's (which the caller
// computes under the same read lock) kept from now on. The slice is the
// copy's: read it inside View only.
func (s *searches) answered(k searchKey, answer func() []*citizenRow) []*citizenRow {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tick++
	if l, ok := s.lists[k]; ok {
		l.used = s.tick
		return l.rows
	}
	rows := answer()
	if len(s.lists) >= maxSearches {
		var oldest searchKey
		least := s.tick
		for k, l := range s.lists {
			if l.used < least {
				oldest, least = k, l.used
			}
		}
		delete(s.lists, oldest)
	}
	s.lists[k] = &searchList{rows: rows, used: s.tick}
	return rows
}

// swap puts r in old's place in rows sorted by cmp; false when old is
// not there.
func swap(rows []*citizenRow, old, r *citizenRow, cmp func(a, b *citizenRow) int) bool {
	i, found := slices.BinarySearchFunc(rows, old, cmp)
	if !found || rows[i] != old {
		return false
	}
	rows[i] = r
	return true
}

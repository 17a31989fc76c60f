package mongox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
)

type row struct {
	id   string
	rank int
	kept bool
}

func collect(walk func(fn func(*row) bool)) string {
	var out []string
	walk(func(r *row) bool { out = append(out, r.id); return true })
	return fmt.Sprint(out)
}

// The orders follow every Put, Change and Delete, and Ascend and Descend
// start where their bound says, in both directions.
func TestMirrorKeepsItsOrders(t *testing.T) {
	m := NewMirror(func(r *row) string { return r.id })
	byRank := m.Order("rank", func(a, b *row) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	}, func(r *row) bool { return r.kept })
	if again := m.Order("rank", nil, nil); again != byRank {
		t.Fatal("a name declared twice is one order")
	}
	m.Reset([]row{{"c", 3, true}, {"a", 1, true}, {"b", 2, false}, {"d", 3, true}})
	all := func(fn func(*row) bool) { byRank.Ascend(nil, fn) }
	if got := collect(all); got != "[a c d]" {
		t.Fatalf("after Reset: %s", got)
	}
	m.Put(row{"b", 0, true})  // now kept, first
	m.Put(row{"c", 9, true})  // moves to the end
	m.Put(row{"a", 1, false}) // leaves the order
	m.Change("d", func(r *row) bool { r.rank = 5; return true })
	m.Change("z", func(r *row) bool { t.Fatal("no row z"); return true })
	if got := collect(all); got != "[b d c]" {
		t.Fatalf("after the writes: %s", got)
	}
	if r, ok := m.Get("a"); !ok || r.kept || m.Len() != 4 || byRank.Len() != 3 {
		t.Fatalf("Get a: %+v %v, Len %d, order Len %d", r, ok, m.Len(), byRank.Len())
	}
	m.Delete("d")
	m.Delete("nothing")
	if got := collect(all); got != "[b c]" {
		t.Fatalf("after Delete: %s", got)
	}
	m.Put(row{"e", 4, true})
	m.Put(row{"f", 4, true})
	from := func(rank int) func(*row) bool { return func(r *row) bool { return r.rank >= rank } }
	below := func(rank int) func(*row) bool { return func(r *row) bool { return r.rank < rank } }
	for _, c := range []struct {
		name string
		walk func(fn func(*row) bool)
		want string
	}{
		{"ascend from 4", func(fn func(*row) bool) { byRank.Ascend(from(4), fn) }, "[e f c]"},
		{"ascend from 10", func(fn func(*row) bool) { byRank.Ascend(from(10), fn) }, "[]"},
		{"descend", func(fn func(*row) bool) { byRank.Descend(nil, fn) }, "[c f e b]"},
		{"descend below 9", func(fn func(*row) bool) { byRank.Descend(below(9), fn) }, "[f e b]"},
		{"descend below 0", func(fn func(*row) bool) { byRank.Descend(below(0), fn) }, "[]"},
		{"ascend, stopping", func(fn func(*row) bool) {
			n := 0
			byRank.Ascend(nil, func(r *row) bool { n++; return fn(r) && n < 2 })
		}, "[b e]"},
	} {
		if got := collect(c.walk); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// Load fills the copy once; a failed load is tried again by the next call.
func TestMirrorLoadsOnce(t *testing.T) {
	m := NewMirror(func(r *row) string { return r.id })
	byID := m.Order("id", func(a, b *row) int { return cmp.Compare(a.id, b.id) }, nil)
	calls := 0
	fail := errors.New("down")
	load := func(context.Context) ([]row, error) {
		calls++
		if calls == 1 {
			return nil, fail
		}
		return []row{{id: "b"}, {id: "a"}}, nil
	}
	if err := m.Load(context.Background(), load); !errors.Is(err, fail) {
		t.Fatalf("the first load fails: %v", err)
	}
	m.Put(row{id: "c"}) // a write before the load: the scan will have it
	for range 2 {
		if err := m.Load(context.Background(), load); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 2 {
		t.Fatalf("loaded %d times", calls)
	}
	var ids []string
	byID.Ascend(nil, func(r *row) bool { ids = append(ids, r.id); return true })
	if !slices.Equal(ids, []string{"a", "b"}) {
		t.Fatalf("after the load: %v", ids)
	}
}

// Stores look their collection's copy up on every write they apply, so a
// lookup of a copy that exists allocates nothing, and every lookup gets
// the same copy.
func TestMirrorOfFindsTheCopyWithoutAllocating(t *testing.T) {
	db := NewDB(nil, Exclusive)
	id := func(r *row) string { return r.id }
	first := MirrorOf(db, "rows", id)
	if again := MirrorOf(db, "rows", id); again != first {
		t.Fatal("a second lookup made another copy")
	}
	if n := testing.AllocsPerRun(100, func() { _ = MirrorOf(db, "rows", id) }); n != 0 {
		t.Fatalf("a lookup of an existing copy allocates %v times", n)
	}
	if MirrorOf(NewDB(nil, Shared), "rows", id) != nil {
		t.Fatal("a shared database has no copy")
	}
}

// A Postings keeps each row under each of its keys in order through every
// write; a key given twice lists the row once; a write that leaves a row's
// keys and place as they were swaps it in place, and one that changes
// them moves it.
func TestMirrorKeepsItsPostings(t *testing.T) {
	type tagged struct {
		id   string
		rank int
		tags []string
		note string
	}
	m := NewMirror(func(r *tagged) string { return r.id })
	byRank := func(a, b *tagged) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	}
	tags := m.Postings("tags", func(to []string, r *tagged) []string { return append(to, r.tags...) }, byRank)
	if again := m.Postings("tags", nil, nil); again != tags {
		t.Fatal("a name declared twice is one postings")
	}
	under := func(key string, from int) string {
		var out []string
		n := tags.Ascend(key, from, func(r *tagged) bool { out = append(out, r.id+r.note); return true })
		if n != tags.Len(key) {
			t.Fatalf("Ascend %s counted %d, Len %d", key, n, tags.Len(key))
		}
		return fmt.Sprint(n, out)
	}
	m.Reset([]tagged{{"c", 3, []string{"x", "y"}, ""}, {"a", 1, []string{"x", "x"}, ""}, {"b", 2, nil, ""}})
	for key, want := range map[string]string{"x": "2 [a c]", "y": "1 [c]", "z": "0 []"} {
		if got := under(key, 0); got != want {
			t.Fatalf("after Reset, %s: %s, want %s", key, got, want)
		}
	}
	m.Put(tagged{"b", 0, []string{"y", "x", "y"}, ""}) // joins two lists, first in each
	m.Change("c", func(r *tagged) bool { r.note = "'"; return true })
	m.Change("a", func(r *tagged) bool { r.tags = []string{"z"}; return true })
	for key, want := range map[string]string{"x": "2 [b c']", "y": "2 [b c']", "z": "1 [a]"} {
		if got := under(key, 0); got != want {
			t.Fatalf("after the writes, %s: %s, want %s", key, got, want)
		}
	}
	if got := under("x", 1); got != "2 [c']" {
		t.Fatalf("from 1: %s", got)
	}
	if got := under("x", 5); got != "2 []" {
		t.Fatalf("from past the end: %s", got)
	}
	m.Delete("b")
	if n := m.DeleteWhere(func(r *tagged) bool { return r.id == "a" }); n != 1 {
		t.Fatalf("DeleteWhere removed %d", n)
	}
	for key, want := range map[string]string{"x": "1 [c']", "y": "1 [c']", "z": "0 []"} {
		if got := under(key, 0); got != want {
			t.Fatalf("after the deletes, %s: %s, want %s", key, got, want)
		}
	}
}

// A write that leaves a row where it sorts (a field the order ignores)
// replaces it in place, and AscendAt reads a page at an offset with the
// order's length.
func TestOrderReplacesInPlaceAndPagesAtAnOffset(t *testing.T) {
	type noted struct {
		id   string
		note string
	}
	m := NewMirror(func(r *noted) string { return r.id })
	byID := m.Order("id", func(a, b *noted) int { return cmp.Compare(a.id, b.id) }, nil)
	m.Reset([]noted{{"a", ""}, {"b", ""}, {"c", ""}})
	m.Change("b", func(r *noted) bool { r.note = "'"; return true })
	var page []string
	n := byID.AscendAt(1, func(r *noted) bool { page = append(page, r.id+r.note); return len(page) < 5 })
	if n != 3 || fmt.Sprint(page) != "[b' c]" {
		t.Fatalf("AscendAt 1: %d %v", n, page)
	}
	if r, _ := m.Get("b"); r.note != "'" {
		t.Fatalf("Get b: %+v", r)
	}
}

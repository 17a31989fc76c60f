package http

import (
	"bytes"
	"errors"
	"testing"

	"sharedworld.dev/services/plots-storage/internal/app"
)

// encoder counts its encodings of a body of n bytes filled with fill.
type encoder struct{ calls int }

func (e *encoder) of(n int, fill byte) func() ([]byte, error) {
	return func() ([]byte, error) {
		e.calls++
		return bytes.Repeat([]byte{fill}, n), nil
	}
}

func garden(version uint64) app.Listing {
	return app.Listing{PlotID: "plot_0_0", Tenancy: "commons", Version: version, Versioned: true}
}

func TestKeptListsAnswerOncePerVersion(t *testing.T) {
	t.Parallel()
	var k keptLists
	var enc encoder
	big := keptListMin
	a, err := k.answer("plot_0_0", garden(1), enc.of(big, 'a'))
	if err != nil || enc.calls != 1 {
		t.Fatalf("first answer: %v, %d encodings", err, enc.calls)
	}
	b, _ := k.answer("plot_0_0", garden(1), enc.of(big, 'x'))
	if b != a || enc.calls != 1 {
		t.Fatalf("the same version is answered from the kept answer (%d encodings)", enc.calls)
	}
	c, _ := k.answer("plot_0_0", garden(2), enc.of(big, 'c'))
	if c == a || enc.calls != 2 || c.body.Bytes()[0] != 'c' {
		t.Fatalf("a newer version is encoded again (%d encodings)", enc.calls)
	}
	if !a.retired {
		t.Fatal("the answer a newer one replaced is retired")
	}
	// A request that read the version before the write may get the newer
	// answer: it holds every write answered before it started.
	if d, _ := k.answer("plot_0_0", garden(1), enc.of(big, 'x')); d != c || enc.calls != 2 {
		t.Fatalf("an older version is served the newer answer (%d encodings)", enc.calls)
	}
	// Another spelling of the plot is another answer (the id is echoed).
	if e, _ := k.answer("plot_x0_y0", garden(2), enc.of(big, 'e')); e == c || enc.calls != 3 {
		t.Fatalf("the plot id as asked names the answer (%d encodings)", enc.calls)
	}
	if k.bytes != 2*big {
		t.Fatalf("kept bytes %d, want %d", k.bytes, 2*big)
	}
}

func TestKeptListsKeepNeitherFailuresNorSmallAnswers(t *testing.T) {
	t.Parallel()
	var k keptLists
	var enc encoder
	boom := errors.New("database down")
	if _, err := k.answer("plot_0_0", garden(1), func() ([]byte, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("the encoding's error is answered: %v", err)
	}
	if _, err := k.answer("plot_0_0", garden(1), enc.of(keptListMin, 'a')); err != nil || enc.calls != 1 {
		t.Fatalf("a failed encoding is not kept: %v, %d encodings", err, enc.calls)
	}
	small := listKey{"plot_x1_y1", "t1", ""}
	l := app.Listing{PlotID: "plot_x1_y1", Tenancy: "t1", Versioned: true}
	k.answer(small.plotID, l, enc.of(keptListMin-1, 's'))
	k.answer(small.plotID, l, enc.of(keptListMin-1, 's'))
	if enc.calls != 3 || k.entries[small] != nil {
		t.Fatalf("a small answer is encoded each time, never kept (%d encodings)", enc.calls)
	}
	if k.bytes != keptListMin {
		t.Fatalf("kept bytes %d, want %d", k.bytes, keptListMin)
	}
}

func TestKeptListsStayWithinTheirBudget(t *testing.T) {
	t.Parallel()
	k := keptLists{budget: 3 * keptListMin}
	var enc encoder
	for _, prefix := range []string{"/a/", "/b/", "/c/"} {
		k.answer("plot_0_0", app.Listing{PlotID: "plot_0_0", Tenancy: "commons", Prefix: prefix, Versioned: true}, enc.of(keptListMin, 'x'))
	}
	// /a/ used again: /b/ is the least recently used when /d/ comes.
	k.answer("plot_0_0", app.Listing{PlotID: "plot_0_0", Tenancy: "commons", Prefix: "/a/", Versioned: true}, enc.of(keptListMin, 'x'))
	d, _ := k.answer("plot_0_0", app.Listing{PlotID: "plot_0_0", Tenancy: "commons", Prefix: "/d/", Versioned: true}, enc.of(keptListMin, 'x'))
	if k.bytes > k.budget || len(k.entries) != 3 {
		t.Fatalf("kept %d bytes in %d answers, budget %d", k.bytes, len(k.entries), k.budget)
	}
	if _, ok := k.entries[listKey{"plot_0_0", "commons", "/b/"}]; ok {
		t.Fatal("the least recently used answer goes first")
	}
	// The gzip form counts too: with /d/'s, the oldest other answer goes.
	gz := k.gzipped(d)
	if len(gz.Bytes()) == 0 || k.bytes > k.budget || len(k.entries) != 2 {
		t.Fatalf("with a gzip form: %d bytes in %d answers", k.bytes, len(k.entries))
	}
	if again := k.gzipped(d); again != gz {
		t.Fatal("the gzip form is made once")
	}
}

package http

import (
	"bytes"
	"compress/gzip"
	"sync"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/services/plots-storage/internal/app"
)

// Kept answers: a large list (the whole garden holds a file per citizen,
// some 230 bytes each in JSON) cost its encoding on every request, 94
// requests/s at 10,000 files. Where the store keeps a list's version (the
// embedded backend), the encoded answer is kept under the listing and its
// version, with its gzip form made on the first request that accepts it,
// and sent by sendfile: a repeat costs the checks, a lookup and the send.
const (
	// keptListMin is the smallest answer kept: below it an encoding
	// costs about what a lookup does, and the many prefixes a caller can
	// send would only push the large answers out.
	keptListMin = 16 << 10
	// keptListBudget bounds the bytes of kept answers (JSON and gzip).
	// Each is held twice, in memory and in the in-memory file sendfile
	// reads, so they take up to twice this.
	keptListBudget = 32 << 20
)

// keptLists are the encoded answers of large lists by listing.
type keptLists struct {
	mu      sync.Mutex
	entries map[listKey]*keptList
	bytes   int
	budget  int    // 0: keptListBudget
	tick    uint64 // orders uses, for dropping the least recently used
}

// listKey names a listing as asked: the plot id as sent (it is echoed,
// and one plot has more than one spelling), the tenancy and the prefix.
type listKey struct{ plotID, tenancy, prefix string }

// keptList is one listing's answer at one version. It is in the map from
// the moment its encoding starts, so concurrent requests of that version
// wait for the one encoding rather than each encoding it.
type keptList struct {
	version uint64
	ready   chan struct{} // closed once body or err is set
	body    *httpx.StaticBody
	err     error
	used    uint64 // keptLists.tick at its last use (under keptLists.mu)
	done    bool   // encoded (under keptLists.mu)
	dropped bool   // out of the map (under keptLists.mu)

	gzLen int // the gzip form's bytes counted in keptLists.bytes (under keptLists.mu)

	mu      sync.Mutex // guards gz and retired
	gz      *httpx.StaticBody
	retired bool
}

// answer returns the encoded answer of l, from the kept one of its version
// (or a newer one) or from encode, which it keeps when large. A kept
// answer older than l's version is replaced.
func (k *keptLists) answer(asked string, l app.Listing, encode func() ([]byte, error)) (*keptList, error) {
	key := listKey{asked, l.Tenancy, l.Prefix}
	k.mu.Lock()
	if k.entries == nil {
		k.entries = map[listKey]*keptList{}
	}
	k.tick++
	// A failed encoding leaves the map as it ends: an entry found is
	// being encoded or holds an answer.
	if e, ok := k.entries[key]; ok && e.version >= l.Version {
		e.used = k.tick
		k.mu.Unlock()
		<-e.ready
		if e.err == nil {
			return e, nil
		}
		// The encoding it waited for failed: its own try answers.
		return k.build(nil, encode)
	}
	e := &keptList{version: l.Version, ready: make(chan struct{}), used: k.tick}
	if old, ok := k.entries[key]; ok {
		k.dropLocked(key, old)
	}
	k.entries[key] = e
	k.mu.Unlock()
	return k.build(&keyed{key, e}, encode)
}

type keyed struct {
	key listKey
	e   *keptList
}

// build encodes an answer; into, when set, is the entry it fills.
func (k *keptLists) build(into *keyed, encode func() ([]byte, error)) (*keptList, error) {
	b, err := encode()
	e := &keptList{ready: make(chan struct{})}
	if into != nil {
		e = into.e
	}
	if err == nil {
		e.body = httpx.NewStaticBody(b)
	}
	e.err = err
	close(e.ready)
	if into == nil {
		e.retire() // nobody else sends it
		return e, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	e.done = true
	switch {
	case e.dropped:
		e.retire()
	case err != nil || len(b) < keptListMin:
		k.dropLocked(into.key, e) // counts nothing: it was never counted
	default:
		// A gzip form made while the encoding was still being kept is
		// counted here; one made later, by gzipped.
		e.mu.Lock()
		if e.gz != nil {
			e.gzLen = len(e.gz.Bytes())
		}
		e.mu.Unlock()
		k.bytes += len(b) + e.gzLen
		k.trimLocked(into.key)
	}
	return e, err
}

// dropLocked takes e out of the map; its bodies are retired once encoded
// (responses sending them finish first).
func (k *keptLists) dropLocked(key listKey, e *keptList) {
	if k.entries[key] == e {
		delete(k.entries, key)
	}
	if e.dropped {
		return
	}
	e.dropped = true
	if !e.done {
		return // its builder retires it
	}
	if e.body != nil && e.err == nil && len(e.body.Bytes()) >= keptListMin {
		k.bytes -= len(e.body.Bytes()) + e.gzLen
	}
	e.retire()
}

// trimLocked drops the least recently used answers (never keep's) until
// the kept bytes fit the budget.
func (k *keptLists) trimLocked(keep listKey) {
	budget := k.budget
	if budget == 0 {
		budget = keptListBudget
	}
	for k.bytes > budget {
		var oldest *keptList
		var at listKey
		for key, e := range k.entries {
			if key != keep && e.done && (oldest == nil || e.used < oldest.used) {
				oldest, at = e, key
			}
		}
		if oldest == nil {
			return
		}
		k.dropLocked(at, oldest)
	}
}

// gzipped is the answer's gzip form, made once on first use (compressing
// 3 MB of JSON takes some milliseconds; the sends after it none).
func (k *keptLists) gzipped(e *keptList) *httpx.StaticBody {
	gz, made := e.gzipped()
	if made {
		// Counted outside e.mu: dropLocked takes e.mu under k.mu.
		k.mu.Lock()
		if e.done && !e.dropped && e.gzLen == 0 && len(e.body.Bytes()) >= keptListMin {
			e.gzLen = len(gz.Bytes())
			k.bytes += e.gzLen
			k.trimLocked(listKey{})
		}
		k.mu.Unlock()
	}
	return gz
}

func (e *keptList) gzipped() (gz *httpx.StaticBody, made bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.gz != nil {
		return e.gz, false
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed) // a valid level never fails
	_, _ = zw.Write(e.body.Bytes())                    // writes to a bytes.Buffer do not fail
	_ = zw.Close()
	e.gz = httpx.NewStaticBody(buf.Bytes())
	if e.retired {
		e.gz.Retire()
	}
	return e.gz, true
}

// retire gives up e's bodies: responses sending them finish first.
func (e *keptList) retire() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.retired {
		return
	}
	e.retired = true
	if e.body != nil {
		e.body.Retire()
	}
	if e.gz != nil {
		e.gz.Retire()
	}
}

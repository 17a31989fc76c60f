package store

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/identity/internal/domain"
)

// citizenRow is a citizen in MirroredCitizens' copy (the embedded backend,
// where FerretDB would decode every citizen for a directory page): the
// document with its search keys folded once, when written.
type citizenRow struct {
	// exported so that the row can be kept in the kit's snapshot of the
	// copy (mongox: a clean stop writes it, the next start reads it)
	Doc                   citizenDoc
	FoldedName, FoldedBio string
	FoldedInterests       []string
}

func rowOf(d citizenDoc) citizenRow {
	r := citizenRow{Doc: d, FoldedName: fold(d.Name), FoldedBio: fold(d.DirectoryBio)}
	for _, i := range d.Interests {
		r.FoldedInterests = append(r.FoldedInterests, fold(i))
	}
	return r
}

// listed is the directory's selection: visible, living and named.
func (r *citizenRow) listed() bool {
	return r.Doc.DirectoryVisible && r.Doc.Status == domain.StatusLiving && r.Doc.Name != ""
}

// citizenMirror keeps every citizen by agent id and the directory in its
// order, citizen number (the "directory" index on MongoDB), whole and by
// key: under each folded interest (the directory's interest filter), and
// under each trigram of the folded name and bio, so that a search walks
// only the citizens that hold the needle's rarest trigram, not all.
type citizenMirror struct {
	*mongox.Mirror[citizenRow]
	directory        *mongox.Order[citizenRow]
	interests, grams *mongox.Postings[citizenRow]
	searches         *searches
}

func citizenMirrorOf(db *mongox.DB) *citizenMirror {
	m := mongox.MirrorOf(db, "citizens", func(r *citizenRow) string { return r.Doc.AgentID })
	if m == nil {
		return nil
	}
	byNumber := func(a, b *citizenRow) int {
		if c := cmp.Compare(a.Doc.Number, b.Doc.Number); c != 0 {
			return c
		}
		return strings.Compare(a.Doc.AgentID, b.Doc.AgentID)
	}
	return &citizenMirror{Mirror: m, directory: m.Order("directory", byNumber, (*citizenRow).listed),
		interests: m.Postings("directory interests", func(to []string, r *citizenRow) []string {
			if !r.listed() {
				return to
			}
			return append(to, r.FoldedInterests...)
		}, byNumber),
		grams: m.Postings("directory trigrams", func(to []string, r *citizenRow) []string {
			if !r.listed() {
				return to
			}
			return trigrams(trigrams(to, r.FoldedName), r.FoldedBio)
		}, byNumber),
		searches: m.Keep("directory searches", func() mongox.Keeper[citizenRow] {
			return newSearches(byNumber)
		}).(*searches)}
}

// gram is the length of the search keys: a needle at least this long is
// in a text only if each of its substrings of this length is too.
const gram = 3

// trigrams appends the substrings of s of length gram (bytes: a folded
// needle within a folded text is one in bytes as well).
func trigrams(to []string, s string) []string {
	for i := 0; i+gram <= len(s); i++ {
		to = append(to, s[i:i+gram])
	}
	return to
}

// directoryPage is Directory's query answered in memory: the same
// selection, matches and order as the MongoDB filter. Without a search
// the page is read at its offset and the total is the length of the list;
// a search's matches are kept in directory order (searches), so its page
// and total are a slice and a length too, after the first time it is
// asked, which walks the shortest list that holds every match.
func (m *citizenMirror) directoryPage(q domain.DirectoryQuery) ([]domain.Citizen, int64) {
	search, interest := fold(q.Search), fold(q.Interest)
	out := make([]domain.Citizen, 0, min(q.Limit, 100))
	page := func(r *citizenRow) bool {
		if len(out) == q.Limit {
			return false
		}
		out = append(out, r.Doc.citizen())
		return true
	}
	switch {
	case search == "" && interest == "":
		return out, int64(m.directory.AscendAt(q.Offset, page))
	case search == "":
		return out, int64(m.interests.Ascend(interest, q.Offset, page))
	}
	var total int
	m.View(func() {
		k := searchKey{search: search, interest: interest}
		rows := m.searches.answered(k, func() []*citizenRow { return m.matching(k) })
		total = len(rows)
		for i := max(q.Offset, 0); i < total && page(rows[i]); i++ {
		}
	})
	return out, int64(total)
}

// matching walks the shortest list that holds every match of k (the
// interest's, the needle's rarest trigram's, or the whole directory for
// a needle shorter than a trigram) and keeps the matches. The caller is
// inside View.
func (m *citizenMirror) matching(k searchKey) []*citizenRow {
	candidates := m.directory.Viewed()
	for i := 0; i+gram <= len(k.search); i++ {
		if list := m.grams.Viewed(k.search[i : i+gram]); len(list) < len(candidates) {
			candidates = list
		}
	}
	if k.interest != "" {
		if list := m.interests.Viewed(k.interest); len(list) <= len(candidates) {
			candidates = list
		}
	}
	var out []*citizenRow
	for _, r := range candidates {
		if k.matches(r) {
			out = append(out, r)
		}
	}
	return out
}

func hasInterest(folded []string, want string) bool {
	for _, i := range folded {
		if i == want {
			return true
		}
	}
	return false
}

// fold maps each rune to the smallest rune of its simple case-folding
// orbit. Two strings fold alike exactly when a case-insensitive literal
// regular expression ((?i), simple folding, as the database's $regex with
// option i) matches one against the other, so substring and equality on
// folded strings are the regex matches of the MongoDB query.
func fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		// In ASCII only k and s have orbits reaching past it (K, ſ); their
		// smallest members are still K and S, so upper-casing is the fold.
		return strings.ToUpper(s)
	}
	var b strings.Builder
	for _, r := range s {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		b.WriteRune(m)
	}
	return b.String()
}

// pending are the citizens whose registration is pending since before
// cutoff (a stored time), by agent id.
func (m *citizenMirror) pending(cutoff time.Time) []domain.Citizen {
	var rows []*citizenRow
	m.Scan(func(r *citizenRow) bool {
		if r.Doc.Status == domain.StatusPending && r.Doc.RegisteredAt.Before(cutoff) {
			rows = append(rows, r)
		}
		return true
	})
	slices.SortFunc(rows, func(a, b *citizenRow) int { return strings.Compare(a.Doc.AgentID, b.Doc.AgentID) })
	out := make([]domain.Citizen, len(rows))
	for i, r := range rows {
		out[i] = r.Doc.citizen()
	}
	return out
}

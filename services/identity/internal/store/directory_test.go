package store

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/identity/internal/domain"
)

// TestDirectoryContract registers citizens — pending, living, hidden,
// unnamed, tombstoned, with names and bios in several cases and scripts,
// some seen — and walks every search and interest, page size and offset
// (searches shorter than a trigram and longer, which the mirrored adapter
// answers from its trigram lists), comparing each page and total, the
// pending claims and every read by id with what the stored citizens make
// (computed here, by brute force, from the documents as stored): through
// the adapter that wrote them and through a second one opened on the
// stored citizens, as a restart opens them. Terms shared by a third, a
// half and every listed citizen are searched while citizens register,
// change and are seen, so that the searches the mirrored adapter keeps
// answered are kept through those writes.
func TestDirectoryContract(t *testing.T) {
	testkit.EachAdapter(t, newMongo, newMirrored, testDirectory)
}

func testDirectory(t *testing.T, kit *testkit.Kit, open func() adapter) {
	ctx := kit.Ctx()
	written := ensured(t, open())
	names := []string{"Gardener", "gardenia", "KELVIN", "Straße", "ÄRGER", "ärger", "Ivy", "K\u212Aate", "", "Stream"}
	bios := []string{"I tend the garden.", "Maps and music", "", "STRASSE", "ſong writer", "kitchen"}
	interests := [][]string{{"music"}, {"Maps", "Music"}, nil, {"gardening"}, {"MUSIC", "poetry"}}
	// every listed citizen is named, and the name holds "Worldling"; a
	// third of the bios hold "thirdling" and a half "halfling" (the empty
	// bio stays empty: its citizens are neither)
	name := func(i int) string {
		if n := names[i%len(names)]; n != "" {
			return n + " Worldling"
		}
		return ""
	}
	bio := func(i, j int) string {
		b := bios[j%len(bios)]
		if b != "" && i%3 == 0 {
			b += " thirdling"
		}
		if b != "" && i%2 == 1 {
			b += " HALFLING"
		}
		return b
	}
	now := time.Now()
	for i := range 60 {
		if i%15 == 0 {
			searchShared(t, written)
		}
		id := fmt.Sprintf("agent_%03d", (i*37)%60) // registration order is not id order
		p := domain.Profile{Name: name(i), Bio: "b", DirectoryBio: bio(i, i), Interests: interests[i%len(interests)],
			DirectoryVisible: i%9 != 4}
		if err := written.Claim(ctx, domain.NewPending(id, p, now)); err != nil {
			t.Fatal(err)
		}
		if i%11 == 10 {
			continue // left pending
		}
		if _, err := written.Change(ctx, id, func(c *domain.Citizen) (domain.Event, error) { return c.Activate(int64(i + 1)) }); err != nil {
			t.Fatal(err)
		}
		if i%7 == 3 {
			// a profile change moves the citizen between the keyed lists
			// (its trigrams and interests), a presence write keeps it
			name, bio, in, visible := name(i+3), bio(i+1, i+1), interests[(i+2)%len(interests)], i%14 != 3
			ch := domain.ProfileChange{Name: &name, DirectoryBio: &bio, Interests: &in, DirectoryVisible: &visible}
			if _, err := written.Change(ctx, id, func(c *domain.Citizen) (domain.Event, error) { return c.ChangeProfile(ch, now) }); err != nil {
				t.Fatal(err)
			}
		}
		if i%13 == 6 {
			if _, err := written.Change(ctx, id, func(c *domain.Citizen) (domain.Event, error) { return c.Tombstone(now) }); err != nil {
				t.Fatal(err)
			}
		}
		if i%4 == 0 {
			if err := written.Touch(ctx, id, now.Add(time.Duration(i)*time.Second), now); err != nil {
				t.Fatal(err)
			}
		}
	}
	stored := storedCitizens(t, kit)
	pending, seen := 0, 0
	for _, c := range stored {
		if c.Status == domain.StatusPending {
			pending++
		}
		if !c.LastSeenAt.IsZero() {
			seen++
		}
	}
	if len(stored) != 60 || pending != 5 || seen == 0 {
		t.Fatalf("%d citizens stored, %d pending, %d seen; want the 60 registered, 5 of them left pending, some seen", len(stored), pending, seen)
	}
	everyone := len(expectedDirectory(stored, "", ""))
	for _, shared := range []struct {
		term     string
		min, max int
	}{{"worldling", everyone, everyone}, {"thirdling", everyone / 4, everyone / 2}, {"halfling", everyone / 3, 2 * everyone / 3}} {
		if n := len(expectedDirectory(stored, shared.term, "")); n < shared.min || n > shared.max {
			t.Fatalf("%q is held by %d of the %d listed, want %d to %d", shared.term, n, everyone, shared.min, shared.max)
		}
	}
	checkDirectory(t, "as written", written, stored, now)
	checkDirectory(t, "opened on the stored citizens", ensured(t, open()), stored, now)
}

// checkDirectory compares every read of repo with what the stored
// citizens make.
func checkDirectory(t *testing.T, stage string, repo adapter, stored map[string]domain.Citizen, now time.Time) {
	t.Helper()
	ctx := t.Context()
	for _, id := range append(slices.Sorted(maps.Keys(stored)), "agent_none") {
		want, wok := stored[id]
		got, gok, err := repo.Get(ctx, id)
		if err != nil || gok != wok || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: Get %s:\n got %+v %v %v\nwant %+v %v", stage, id, got, gok, err, want, wok)
		}
	}
	byID := func(a, b domain.Citizen) int { return strings.Compare(a.AgentID, b.AgentID) }
	// the registrations the repair at start completes; the cutoff is
	// compared as stored (whole milliseconds), as the database does
	for _, cutoff := range []time.Time{now.Add(-time.Second), now, now.Add(time.Millisecond), now.Add(time.Minute)} {
		want := []domain.Citizen{}
		for _, c := range stored {
			if c.Status == domain.StatusPending && c.RegisteredAt.Before(clock.Stored(cutoff)) {
				want = append(want, c)
			}
		}
		got, err := repo.Pending(ctx, cutoff)
		slices.SortFunc(want, byID)
		slices.SortFunc(got, byID)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: Pending before %v:\n got %+v %v\nwant %+v", stage, cutoff, got, err, want)
		}
	}
	for _, search := range append(slices.Clone(sharedTerms), "", "garden", "GARD", "ärg", "Ä", "k", "K", "ß", "strasse", "s", "zzz", ".",
		"ſong", "SONG WRITER", "gardener", "ARDEN", "usi", "te", "Straße", "kitchen") {
		for _, interest := range []string{"", "music", "MAPS", "poetry", "mus", "none"} {
			listed := expectedDirectory(stored, search, interest)
			if search == "" && interest == "" && len(listed) == 0 {
				t.Fatal("nobody is listed: the test lists nothing")
			}
			for _, limit := range []int{1, 4, 100} {
				for offset := 0; ; offset += limit {
					q := domain.DirectoryQuery{Search: search, Interest: interest, Limit: limit, Offset: offset}
					want := listed[min(offset, len(listed)):min(offset+limit, len(listed))]
					got, total, err := repo.Directory(ctx, q)
					if err != nil || total != int64(len(listed)) || !reflect.DeepEqual(got, want) {
						t.Fatalf("%s: %+v:\n got %d %v %v\nwant %d %v", stage, q, total, numbers(got), err, len(listed), numbers(want))
					}
					if offset >= len(listed) {
						break
					}
				}
			}
		}
	}
}

// sharedTerms are searched by many: by every listed citizen, a third,
// a half, and the needle of a third shorter than a trigram's walk
var sharedTerms = []string{"worldling", "Thirdling", "halfling", "ird"}

// searchShared asks for the shared terms' pages, alone and with an
// interest, so that they are answered before the writes that follow.
func searchShared(t *testing.T, repo adapter) {
	t.Helper()
	for _, search := range sharedTerms {
		for _, interest := range []string{"", "music"} {
			if _, _, err := repo.Directory(t.Context(), domain.DirectoryQuery{Search: search, Interest: interest, Limit: 5}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// storedCitizens are the citizens as stored, read straight from the
// collection: the truth both adapters answer from.
func storedCitizens(t *testing.T, kit *testkit.Kit) map[string]domain.Citizen {
	t.Helper()
	docs, err := mongox.FindAll[citizenDoc](kit.Ctx(), kit.DB.Collection("citizens"), bson.M{}, options.Find().SetProjection(bson.M{mongox.OutboxField: 0}))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]domain.Citizen{}
	for _, d := range docs {
		out[d.AgentID] = d.citizen()
	}
	return out
}

// expectedDirectory is the whole directory for a search and an interest,
// by brute force: the visible, named, living citizens whose name or
// directory bio holds the search and who hold the interest, both compared
// case-insensitively as the database's $regex with option i does (simple
// case folding, as Go's (?i)), by citizen number.
func expectedDirectory(stored map[string]domain.Citizen, search, interest string) []domain.Citizen {
	holds := regexp.MustCompile("(?i)" + regexp.QuoteMeta(search))
	is := regexp.MustCompile("(?i)^" + regexp.QuoteMeta(interest) + "$")
	out := []domain.Citizen{}
	for _, c := range stored {
		if !c.DirectoryVisible || c.Status != domain.StatusLiving || c.Name == "" {
			continue
		}
		if search != "" && !holds.MatchString(c.Name) && !holds.MatchString(c.DirectoryBio) {
			continue
		}
		if interest != "" && !slices.ContainsFunc(c.Interests, is.MatchString) {
			continue
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b domain.Citizen) int { return cmp.Compare(a.Number, b.Number) })
	return out
}

func numbers(cs []domain.Citizen) []int64 {
	out := make([]int64, len(cs))
	for i, c := range cs {
		out[i] = c.Number
	}
	return out
}

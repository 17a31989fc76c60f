package store

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/identity/internal/domain"
)

// TestDirectoryAgreesWithTheQueryPath registers citizens through the store
// of the kit's mode (embedded: the in-memory copy answers) — pending,
// living, hidden, unnamed, tombstoned, with names and bios in several
// cases and scripts — and walks every search and interest, page size and
// offset (searches shorter than a trigram and longer, which the copy
// answers from its trigram lists), comparing each page and total with the MongoDB query path (a
// store on a shared handle of the same database) and with a store that
// loads the copy afresh, as a restart does; reads by id too.
func TestDirectoryAgreesWithTheQueryPath(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	written := newCitizens(t, kit.DB)
	names := []string{"Gardener", "gardenia", "KELVIN", "Straße", "ÄRGER", "ärger", "Ivy", "K\u212Aate", "", "Stream"}
	bios := []string{"I tend the garden.", "Maps and music", "", "STRASSE", "ſong writer", "kitchen"}
	interests := [][]string{{"music"}, {"Maps", "Music"}, nil, {"gardening"}, {"MUSIC", "poetry"}}
	now := time.Now()
	var ids []string
	for i := range 60 {
		id := fmt.Sprintf("agent_%03d", (i*37)%60) // registration order is not id order
		ids = append(ids, id)
		p := domain.Profile{Name: names[i%len(names)], Bio: "b", DirectoryBio: bios[i%len(bios)], Interests: interests[i%len(interests)],
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
			name, bio, in, visible := names[(i+3)%len(names)], bios[(i+1)%len(bios)], interests[(i+2)%len(interests)], i%14 != 3
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
	query := NewCitizens(mongox.NewDB(kit.DB.Database, mongox.Shared), nil)
	reloaded := newCitizens(t, mongox.NewDB(kit.DB.Database, kit.DB.Mode()))
	for name, s := range map[string]*Citizens{"as written": written, "loaded at start": reloaded} {
		for _, id := range append(ids, "agent_none") {
			want, wok, err := query.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			got, gok, err := s.Get(ctx, id)
			if err != nil || gok != wok || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: Get %s:\n got %+v %v %v\nwant %+v %v", name, id, got, gok, err, want, wok)
			}
		}
		// the registrations the repair at start completes
		for _, cutoff := range []time.Time{now.Add(-time.Second), now, now.Add(time.Millisecond), now.Add(time.Minute)} {
			want, werr := query.Pending(ctx, cutoff)
			got, gerr := s.Pending(ctx, cutoff)
			byID := func(a, b domain.Citizen) int { return strings.Compare(a.AgentID, b.AgentID) }
			slices.SortFunc(want, byID)
			slices.SortFunc(got, byID)
			if gerr != nil || werr != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: Pending before %v:\n got %+v %v\nwant %+v %v", name, cutoff, got, gerr, want, werr)
			}
		}
		for _, search := range []string{"", "garden", "GARD", "ärg", "Ä", "k", "K", "ß", "strasse", "s", "zzz", ".", "ſong", "SONG WRITER", "gardener", "ARDEN", "usi", "te", "Straße", "kitchen"} {
			for _, interest := range []string{"", "music", "MAPS", "poetry", "mus", "none"} {
				for _, limit := range []int{1, 4, 100} {
					for offset := 0; ; offset += limit {
						q := domain.DirectoryQuery{Search: search, Interest: interest, Limit: limit, Offset: offset}
						want, wantTotal, err := query.Directory(ctx, q)
						if err != nil {
							t.Fatal(err)
						}
						got, total, err := s.Directory(ctx, q)
						if err != nil || total != wantTotal || !reflect.DeepEqual(got, want) {
							t.Fatalf("%s: %+v:\n got %d %v %v\nwant %d %v", name, q, total, numbers(got), err, wantTotal, numbers(want))
						}
						if offset >= int(wantTotal) {
							break
						}
					}
				}
			}
		}
	}
}

func numbers(cs []domain.Citizen) []int64 {
	out := make([]int64, len(cs))
	for i, c := range cs {
		out[i] = c.Number
	}
	return out
}

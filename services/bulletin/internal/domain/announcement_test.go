package domain

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/problem"
)

func ptr[T any](v T) *T { return &v }

func TestAnnouncementDraftValidation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		draft AnnouncementDraft
		kind  problem.Kind // KindInternal means valid
	}{
		{"CONTRACT §6 a title and content are enough", AnnouncementDraft{Title: "Hello", Content: "World"}, problem.KindInternal},
		{"CONTRACT §11 missing title is invalid_request", AnnouncementDraft{Content: "x"}, problem.KindInvalid},
		{"CONTRACT §11 blank title is invalid_request", AnnouncementDraft{Title: "  \t", Content: "x"}, problem.KindInvalid},
		{"CONTRACT §11 missing content is invalid_request", AnnouncementDraft{Title: "x"}, problem.KindInvalid},
		{"CONTRACT §11 title at 200 code points is fine", AnnouncementDraft{Title: strings.Repeat("é", 200), Content: "x"}, problem.KindInternal},
		{"CONTRACT §11 title over 200 code points is validation_failed", AnnouncementDraft{Title: strings.Repeat("a", 201), Content: "x"}, problem.KindValidation},
		{"CONTRACT §11 content at the limit counts code points, not bytes", AnnouncementDraft{Title: "t", Content: strings.Repeat("🌱", MaxAnnouncementContent)}, problem.KindInternal},
		{"CONTRACT §11 content over the limit is validation_failed", AnnouncementDraft{Title: "t", Content: strings.Repeat("a", MaxAnnouncementContent+1)}, problem.KindValidation},
		{"SEED §2.4 content keeps line breaks", AnnouncementDraft{Title: "t", Content: "a\nb\r\n\tc"}, problem.KindInternal},
		{"CONTRACT §1 a control character in content is invalid_request", AnnouncementDraft{Title: "t", Content: "a\x00b"}, problem.KindInvalid},
		{"CONTRACT §1 a line break in the title is invalid_request", AnnouncementDraft{Title: "a\nb", Content: "x"}, problem.KindInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := c.draft.Validate()
			if c.kind == problem.KindInternal {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			pe, ok := problem.As(err)
			if !ok || pe.Kind != c.kind {
				t.Fatalf("want kind %v, got %v", c.kind, err)
			}
			if pe.Hint == "" {
				t.Fatal("every error carries a hint")
			}
		})
	}
}

func TestPostIDShape(t *testing.T) {
	t.Parallel()
	id, err := NewPostID(bytes.NewReader([]byte{0xde, 0xad, 0xbe, 0xef}))
	if err != nil || id != "ann_deadbeef" {
		t.Fatalf("SEED §2.1 post_id ann_<8 hex>: %q, %v", id, err)
	}
	random, err := NewPostID(nil)
	if err != nil || !ValidPostID(random) {
		t.Fatalf("random post id %q, %v", random, err)
	}
	if _, err := NewPostID(bytes.NewReader(nil)); err == nil {
		t.Fatal("a failing random source must be an error, not a short id")
	}
	for _, bad := range []string{"ann_DEADBEEF", "ann_deadbee", "post_deadbeef", "ann_deadbeef0", ""} {
		if ValidPostID(bad) {
			t.Fatalf("ValidPostID(%q) = true", bad)
		}
	}
}

func pinnedPosts(changes []AnnouncementChange) map[string]bool {
	out := map[string]bool{}
	for _, c := range changes {
		out[c.Announcement.PostID] = c.Announcement.Pinned
	}
	return out
}

// posting is every change a post plan writes, in order, for postID.
func posting(plan PostPlan, postID string) []AnnouncementChange {
	return append(slices.Clone(plan.Unpins), plan.Announce(postID))
}

func TestPostAnnouncementPinRules(t *testing.T) {
	t.Parallel()
	old := Announcement{PostID: "ann_00000001", Title: "old", Content: "x", PostedAt: at, Pinned: true, Version: 3}

	t.Run("CONTRACT §11 pinned defaults to true and unpins the previous", func(t *testing.T) {
		plan, err := PostAnnouncement(AnnouncementDraft{Title: "new", Content: "y"}, []Announcement{old}, at)
		if err != nil {
			t.Fatal(err)
		}
		changes := posting(plan, "ann_00000002")
		if len(changes) != 2 {
			t.Fatalf("want unpin + post, got %d changes", len(changes))
		}
		unpin, ok := changes[0].Event.(AnnouncementPinned)
		if !ok || unpin.PostID != old.PostID || unpin.Pinned || unpin.Version != 4 {
			t.Fatalf("first change must unpin the old one at version 4: %+v", changes[0].Event)
		}
		posted, ok := changes[1].Event.(AnnouncementPosted)
		if !ok || !posted.Pinned || posted.Version != 1 || posted.Content != "y" || !posted.PostedAt.Equal(at.Truncate(1e6)) {
			t.Fatalf("second change must post pinned at version 1: %+v", changes[1].Event)
		}
	})
	t.Run("CONTRACT §11 pinned false posts without touching the pinned one", func(t *testing.T) {
		plan, err := PostAnnouncement(AnnouncementDraft{Title: "new", Content: "y", Pinned: ptr(false)}, []Announcement{old}, at)
		if err != nil {
			t.Fatal(err)
		}
		changes := posting(plan, "ann_00000002")
		if len(changes) != 1 || changes[0].Announcement.Pinned || changes[0].Announcement.PostID != "ann_00000002" {
			t.Fatalf("want one unpinned post, got %+v", changes)
		}
	})
	t.Run("CONTRACT §11 an invalid draft changes nothing", func(t *testing.T) {
		plan, err := PostAnnouncement(AnnouncementDraft{Title: "", Content: "y"}, []Announcement{old}, at)
		if err == nil || plan.Unpins != nil {
			t.Fatalf("want error and no changes, got %v, %+v", err, plan.Unpins)
		}
	})
}

func TestPinAnnouncement(t *testing.T) {
	t.Parallel()
	a := Announcement{PostID: "ann_0000000a", Pinned: true, Version: 2}
	b := Announcement{PostID: "ann_0000000b", Pinned: false, Version: 1}
	c := Announcement{PostID: "ann_0000000c", Pinned: true, Version: 5}
	cases := []struct {
		name      string
		changes   []AnnouncementChange
		want      map[string]bool
		versionOf map[string]uint64
	}{
		{"CONTRACT §6 pinning one unpins the previous", PinAnnouncement(b, []Announcement{a}, at),
			map[string]bool{a.PostID: false, b.PostID: true}, map[string]uint64{a.PostID: 3, b.PostID: 2}},
		{"CONTRACT §6 pinning the pinned one changes nothing", PinAnnouncement(a, []Announcement{a}, at),
			map[string]bool{}, nil},
		{"CONTRACT §6 one pinned at a time: a doubly pinned board is repaired", PinAnnouncement(b, []Announcement{a, c}, at),
			map[string]bool{a.PostID: false, c.PostID: false, b.PostID: true}, map[string]uint64{c.PostID: 6}},
		{"CONTRACT §6 re-pinning one of two pinned unpins only the other", PinAnnouncement(c, []Announcement{a, c}, at),
			map[string]bool{a.PostID: false}, nil},
		{"CONTRACT §6 unpin a pinned announcement", UnpinAnnouncement(a, at),
			map[string]bool{a.PostID: false}, map[string]uint64{a.PostID: 3}},
		{"CONTRACT §6 unpin of one not pinned changes nothing", UnpinAnnouncement(b, at),
			map[string]bool{}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := pinnedPosts(tc.changes)
			if len(got) != len(tc.want) {
				t.Fatalf("changes %v, want %v", got, tc.want)
			}
			for id, pinned := range tc.want {
				if g, ok := got[id]; !ok || g != pinned {
					t.Fatalf("%s pinned = %v (changed %v), want %v", id, g, ok, pinned)
				}
			}
			for _, ch := range tc.changes {
				ev, ok := ch.Event.(AnnouncementPinned)
				if !ok || ev.Version != ch.Announcement.Version || ev.Pinned != ch.Announcement.Pinned {
					t.Fatalf("event does not match the new state: %+v vs %+v", ch.Event, ch.Announcement)
				}
				if want, ok := tc.versionOf[ch.Announcement.PostID]; ok && ch.Announcement.Version != want {
					t.Fatalf("%s version = %d, want %d", ch.Announcement.PostID, ch.Announcement.Version, want)
				}
			}
			// Unpins come first: a crash after them leaves nothing pinned twice.
			seenPin := false
			for _, ch := range tc.changes {
				if ch.Announcement.Pinned {
					seenPin = true
				} else if seenPin {
					t.Fatal("an unpin was ordered after the pin")
				}
			}
		})
	}
}

func TestSetPinnedChangesOnlyWhatDiffers(t *testing.T) {
	t.Parallel()
	a := Announcement{PostID: "ann_0000000a", Pinned: false, Version: 4}
	if evs := a.SetPinned(false, at); evs != nil || a.Version != 4 {
		t.Fatalf("unpinning an unpinned announcement: events %v, version %d; want none and 4", evs, a.Version)
	}
	evs := a.SetPinned(true, at)
	if len(evs) != 1 || !a.Pinned || a.Version != 5 {
		t.Fatalf("pinning: events %v, %+v", evs, a)
	}
	if ev, ok := evs[0].(AnnouncementPinned); !ok || ev.Version != 5 || !ev.Pinned || !ev.At.Equal(at.Truncate(1e6)) || ev.At.Location() != time.UTC {
		t.Fatalf("the event carries the new version and the stored time: %+v", evs[0])
	}
}

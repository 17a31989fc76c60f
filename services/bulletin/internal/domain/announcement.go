package domain

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/problem"
)

// Limits of an announcement, in Unicode code points (CONTRACT §11). The
// seed gives none. The bulletin carries an announcement's text up to 92
// times (20 announcements, the same 20 as events, pinned twice, and up to 50
// feed bodies), so the content limit is what keeps the document under 1 MiB
// (CONTRACT §11).
const (
	MaxAnnouncementTitle   = 200
	MaxAnnouncementContent = 2000
)

// postIDPrefix and postIDHexLen shape a post_id: ann_<8 hex> (SEED §2.1).
const (
	postIDPrefix = "ann_"
	postIDHexLen = 8
)

// NewPostID draws an ann_<8 hex> id from r (crypto/rand.Reader when nil).
func NewPostID(r io.Reader) (string, error) {
	if r == nil {
		r = rand.Reader
	}
	var b [postIDHexLen / 2]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", fmt.Errorf("draw post id: %w", err)
	}
	return postIDPrefix + hex.EncodeToString(b[:]), nil
}

// ValidPostID reports whether s has the post_id shape.
func ValidPostID(s string) bool {
	return len(s) == len(postIDPrefix)+postIDHexLen && strings.HasPrefix(s, postIDPrefix) && isLowerHex(s[len(postIDPrefix):])
}

// ErrAnnouncementNotFound answers a pin or unpin of an unknown post_id.
var ErrAnnouncementNotFound = problem.NotFound("No announcement has this post_id.",
	"Use a post_id (ann_<8 hex>) from the bulletin's announcements.")

// Announcement is the ambassador's post (SEED §2.4), the aggregate the
// bulletin service owns. Version counts its changes; every event carries it.
type Announcement struct {
	PostID   string
	Title    string
	Content  string
	PostedAt time.Time
	Pinned   bool
	Version  uint64
}

// AnnouncementDraft is a POST /api/admin/announcements request after decoding.
type AnnouncementDraft struct {
	Title   string
	Content string
	// Pinned is nil when the field was absent: an announcement is pinned
	// unless the ambassador says pinned: false (CONTRACT §11).
	Pinned *bool
}

// Pins reports whether the post pins its announcement (and so unpins the
// one pinned before): only such a post moves pins.
func (d AnnouncementDraft) Pins() bool { return d.Pinned == nil || *d.Pinned }

// Validate applies CONTRACT §11: a missing or blank title or content is
// invalid_request; one over its length is validation_failed.
func (d AnnouncementDraft) Validate() error {
	if strings.TrimSpace(d.Title) == "" {
		return problem.Invalid("title is required.", "Send a non-empty title, at most 200 characters.")
	}
	if strings.TrimSpace(d.Content) == "" {
		return problem.Invalid("content is required.", "Send the announcement text as content, at most 2000 characters.")
	}
	if n := utf8.RuneCountInString(d.Title); n > MaxAnnouncementTitle {
		return problem.Validation(fmt.Sprintf("title is %d characters; the limit is %d.", n, MaxAnnouncementTitle),
			"Shorten the title to 200 characters or fewer.")
	}
	if n := utf8.RuneCountInString(d.Content); n > MaxAnnouncementContent {
		return problem.Validation(fmt.Sprintf("content is %d characters; the limit is %d.", n, MaxAnnouncementContent),
			"Shorten the content to 2000 characters or fewer, or split it into several announcements.")
	}
	if hasControl(d.Title, false) {
		return problem.Invalid("title contains a control character.", "Send the title as one line of plain text.")
	}
	if hasControl(d.Content, true) {
		return problem.Invalid("content contains a control character other than a line break or tab.",
			"Remove control characters; line breaks and tabs are allowed.")
	}
	return nil
}

// hasControl reports a C0/C1 control character (or invalid UTF-8); line
// breaks and tabs are allowed when breaks is set.
func hasControl(s string, breaks bool) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if breaks && (r == '\n' || r == '\r' || r == '\t') {
			continue
		}
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return true
		}
	}
	return false
}

// AnnouncementPosted is the announcement.posted event.
type AnnouncementPosted struct {
	PostID   string
	Title    string
	Content  string
	Pinned   bool
	PostedAt time.Time
	Version  uint64
}

// AnnouncementPinned is the announcement.pinned event (pinned or unpinned).
type AnnouncementPinned struct {
	PostID  string
	Pinned  bool
	At      time.Time
	Version uint64
}

// AnnouncementEvent is an event of the announcement aggregate:
// AnnouncementPosted or AnnouncementPinned.
type AnnouncementEvent interface{ announcementEvent() }

func (AnnouncementPosted) announcementEvent() {}
func (AnnouncementPinned) announcementEvent() {}

// AnnouncementChange is one announcement's new state and the event that
// says so; the store writes them together (state and outbox in one write).
type AnnouncementChange struct {
	Announcement Announcement
	Event        AnnouncementEvent
}

// PostPlan is what posting a valid draft does: the unpins, written first,
// then the post itself, built once the store has drawn its post_id.
type PostPlan struct {
	// Unpins unpin every announcement pinned now when the post is pinned:
	// one pinned at a time (CONTRACT §6). They come before the post so that
	// a crash halfway leaves nothing pinned twice.
	Unpins []AnnouncementChange
	draft  AnnouncementDraft
	now    time.Time
}

// PostAnnouncement plans the post of a draft, pinned unless the draft says
// pinned: false (CONTRACT §11).
func PostAnnouncement(d AnnouncementDraft, pinnedNow []Announcement, now time.Time) (PostPlan, error) {
	if err := d.Validate(); err != nil {
		return PostPlan{}, err
	}
	plan := PostPlan{draft: d, now: clock.Stored(now)}
	if plan.pinned() {
		plan.Unpins = unpinAllBut(pinnedNow, "", plan.now)
	}
	return plan, nil
}

func (p PostPlan) pinned() bool { return p.draft.Pins() }

// Announce is the new announcement under postID, at version 1, with its
// event.
func (p PostPlan) Announce(postID string) AnnouncementChange {
	a := Announcement{PostID: postID, Title: p.draft.Title, Content: p.draft.Content, PostedAt: p.now, Pinned: p.pinned(), Version: 1}
	return AnnouncementChange{Announcement: a, Event: AnnouncementPosted{
		PostID: a.PostID, Title: a.Title, Content: a.Content, Pinned: a.Pinned, PostedAt: a.PostedAt, Version: a.Version,
	}}
}

// PinAnnouncement pins target and unpins every other pinned announcement.
// Pinning the pinned announcement changes nothing (no event), so a retried
// request is harmless. pinnedNow may hold more than one announcement — the
// trace of an interrupted pin — and all but target are unpinned, which
// repairs it. Unpins come first, as for a post.
func PinAnnouncement(target Announcement, pinnedNow []Announcement, now time.Time) []AnnouncementChange {
	now = clock.Stored(now)
	changes := unpinAllBut(pinnedNow, target.PostID, now)
	if ch, changed := setPinned(target, true, now); changed {
		changes = append(changes, ch)
	}
	return changes
}

// UnpinAnnouncement unpins target; unpinning one that is not pinned changes
// nothing.
func UnpinAnnouncement(target Announcement, now time.Time) []AnnouncementChange {
	if ch, changed := setPinned(target, false, clock.Stored(now)); changed {
		return []AnnouncementChange{ch}
	}
	return nil
}

func unpinAllBut(pinnedNow []Announcement, keep string, now time.Time) []AnnouncementChange {
	var changes []AnnouncementChange
	for _, a := range pinnedNow {
		if a.PostID == keep {
			continue
		}
		if ch, changed := setPinned(a, false, now); changed {
			changes = append(changes, ch)
		}
	}
	return changes
}

func setPinned(a Announcement, pinned bool, now time.Time) (AnnouncementChange, bool) {
	evs := a.SetPinned(pinned, now)
	if len(evs) == 0 {
		return AnnouncementChange{}, false
	}
	return AnnouncementChange{Announcement: a, Event: evs[0]}, true
}

// SetPinned pins or unpins a, at its next version, and returns the event
// that says so; when a is pinned (or unpinned) already nothing changes and
// there is no event. The plans above decide which announcements to change
// from what was read; SetPinned decides again on each one as it is stored.
func (a *Announcement) SetPinned(pinned bool, now time.Time) []AnnouncementEvent {
	if a.Pinned == pinned {
		return nil
	}
	a.Pinned = pinned
	a.Version++
	return []AnnouncementEvent{AnnouncementPinned{PostID: a.PostID, Pinned: pinned, At: clock.Stored(now), Version: a.Version}}
}

// View is the announcement as the contract shows it (SEED §2.4).
func (a Announcement) View() AnnouncementView {
	v := AnnouncementView{PostID: a.PostID, Title: a.Title, Content: a.Content, PostedAt: clock.Timestamp(a.PostedAt)}
	if a.Pinned {
		v.Pinned = 1
	}
	return v
}

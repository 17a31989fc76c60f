package domain

import "time"

// PostedAnnouncement is the projection of one announcement, built from the
// bulletin's own events like every other projection, so that a rebuild by
// replay restores it too. The text never changes; the pin does, guarded by
// the announcement's version.
type PostedAnnouncement struct {
	PostID     string
	Title      string
	Content    string
	PostedAt   time.Time
	Pinned     bool
	PinnedAt   time.Time
	PinVersion uint64
}

// Kind is KindAnnouncement.
func (a PostedAnnouncement) Kind() RecordKind { return KindAnnouncement }

// Key is the post_id.
func (a PostedAnnouncement) Key() string { return a.PostID }

// Revision is the version of the last pin change (posting is version 1).
func (a PostedAnnouncement) Revision() uint64 { return a.PinVersion }

// ApplyPosted takes in announcement.posted.
func (a PostedAnnouncement) ApplyPosted(e AnnouncementPosted) (PostedAnnouncement, bool) {
	changed := fillString(&a.Title, e.Title)
	changed = fillString(&a.Content, e.Content) || changed
	changed = fillTime(&a.PostedAt, e.PostedAt) || changed
	if e.Version > a.PinVersion {
		a.Pinned, a.PinVersion, changed = e.Pinned, e.Version, true
		a.PinnedAt = time.Time{}
		if e.Pinned {
			a.PinnedAt = ms(e.PostedAt)
		}
	}
	return a, changed
}

// ApplyPinned takes in announcement.pinned.
func (a PostedAnnouncement) ApplyPinned(e AnnouncementPinned) (PostedAnnouncement, bool) {
	if e.Version <= a.PinVersion {
		return a, false
	}
	a.Pinned, a.PinVersion = e.Pinned, e.Version
	a.PinnedAt = time.Time{}
	if e.Pinned {
		a.PinnedAt = ms(e.At)
	}
	return a, true
}

// newerThan orders announcements newest posted_at first, then by id.
func (a PostedAnnouncement) newerThan(o PostedAnnouncement) bool {
	if !a.PostedAt.Equal(o.PostedAt) {
		return a.PostedAt.After(o.PostedAt)
	}
	return a.PostID > o.PostID
}

// pinnedLater decides which of two pinned announcements the board shows
// while the events that unpin the older one are still on their way: the one
// pinned last.
func (a PostedAnnouncement) pinnedLater(o PostedAnnouncement) bool {
	if !a.PinnedAt.Equal(o.PinnedAt) {
		return a.PinnedAt.After(o.PinnedAt)
	}
	return a.PostID > o.PostID
}

// Garden is the projection of the commons garden: its file count as of the
// latest garden event.
type Garden struct {
	Files int64
	At    time.Time
}

// GardenKey is the one garden record's key.
const GardenKey = CommonsPlotID

// Kind is KindGarden.
func (g Garden) Kind() RecordKind { return KindGarden }

// Key is the commons plot id.
func (g Garden) Key() string { return GardenKey }

// Revision is the time of the latest garden event, in milliseconds.
func (g Garden) Revision() uint64 {
	if g.At.IsZero() {
		return 0
	}
	return uint64(g.At.UnixMilli())
}

// ApplyWritten takes in garden.planted or garden.tended. Garden events have
// no version but arrive in order (keyed by the commons plot); an event older
// than the one on record is stale, one of the same millisecond is taken as
// the later since it arrived later.
func (g Garden) ApplyWritten(e GardenWritten) (Garden, bool) { return g.apply(e.GardenFiles, e.At) }

// ApplyRemoved takes in garden.removed, ordered like the writes.
func (g Garden) ApplyRemoved(e GardenRemoved) (Garden, bool) { return g.apply(e.GardenFiles, e.At) }

func (g Garden) apply(files int64, at time.Time) (Garden, bool) {
	at = ms(at)
	if at.Before(g.At) || (at.Equal(g.At) && files == g.Files) {
		return g, false
	}
	return Garden{Files: files, At: at}, true
}

package app

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/services/bulletin/internal/domain"
	bulletinevents "sharedworld.dev/services/bulletin/internal/events"
	"sharedworld.dev/services/bulletin/internal/store"
)

// Announcements are the ambassador's use cases: post, pin, unpin.
type Announcements struct {
	// pins serialises every change of pins in this process: "one pinned at
	// a time" spans documents, and MongoDB here has no multi-document
	// transactions. The version guard of each write still holds across
	// processes.
	pins  sync.Mutex
	store *store.Announcements
	clock clock.Clock
}

// NewAnnouncements wires the use cases.
func NewAnnouncements(s *store.Announcements, clk clock.Clock) *Announcements {
	return &Announcements{store: s, clock: clk}
}

// maxAttempts bounds retries after an id collision or a version clash.
const maxAttempts = 8

// Post publishes a new announcement, pinned unless the draft says
// pinned: false; a pinned post unpins the one pinned before. The unpins are
// written first: if the request fails half way, nothing is pinned twice,
// and repeating the request finishes the job.
func (a *Announcements) Post(ctx context.Context, draft domain.AnnouncementDraft) (domain.Announcement, error) {
	if err := draft.Validate(); err != nil {
		return domain.Announcement{}, err
	}
	a.pins.Lock()
	defer a.pins.Unlock()
	for range maxAttempts {
		id, err := domain.NewPostID(nil)
		if err != nil {
			return domain.Announcement{}, err
		}
		pinnedNow, err := a.store.Pinned(ctx)
		if err != nil {
			return domain.Announcement{}, err
		}
		changes, err := domain.PostAnnouncement(id, draft, pinnedNow, a.clock.Now())
		if err != nil {
			return domain.Announcement{}, err
		}
		err = a.write(ctx, changes)
		if errors.Is(err, store.ErrIDTaken) || errors.Is(err, store.ErrVersionClash) {
			continue
		}
		if err != nil {
			return domain.Announcement{}, err
		}
		return changes[len(changes)-1].Announcement, nil
	}
	return domain.Announcement{}, fmt.Errorf("post announcement: gave up after %d attempts", maxAttempts)
}

// Pin pins the announcement and unpins any other.
func (a *Announcements) Pin(ctx context.Context, postID string) (domain.Announcement, error) {
	return a.change(ctx, postID, func(target domain.Announcement, pinnedNow []domain.Announcement) []domain.AnnouncementChange {
		return domain.PinAnnouncement(target, pinnedNow, a.clock.Now())
	})
}

// Unpin unpins the announcement.
func (a *Announcements) Unpin(ctx context.Context, postID string) (domain.Announcement, error) {
	return a.change(ctx, postID, func(target domain.Announcement, _ []domain.Announcement) []domain.AnnouncementChange {
		return domain.UnpinAnnouncement(target, a.clock.Now())
	})
}

func (a *Announcements) change(ctx context.Context, postID string,
	decide func(target domain.Announcement, pinnedNow []domain.Announcement) []domain.AnnouncementChange) (domain.Announcement, error) {
	if !domain.ValidPostID(postID) {
		return domain.Announcement{}, domain.ErrAnnouncementNotFound
	}
	a.pins.Lock()
	defer a.pins.Unlock()
	for range maxAttempts {
		target, found, err := a.store.Get(ctx, postID)
		if err != nil {
			return domain.Announcement{}, err
		}
		if !found {
			return domain.Announcement{}, domain.ErrAnnouncementNotFound
		}
		pinnedNow, err := a.store.Pinned(ctx)
		if err != nil {
			return domain.Announcement{}, err
		}
		changes := decide(target, pinnedNow)
		err = a.write(ctx, changes)
		if errors.Is(err, store.ErrVersionClash) {
			continue
		}
		if err != nil {
			return domain.Announcement{}, err
		}
		for _, ch := range changes {
			if ch.Announcement.PostID == postID {
				target = ch.Announcement
			}
		}
		return target, nil
	}
	return domain.Announcement{}, fmt.Errorf("change pin of %s: gave up after %d attempts", postID, maxAttempts)
}

// write stores each change with its event, in order.
func (a *Announcements) write(ctx context.Context, changes []domain.AnnouncementChange) error {
	for _, ch := range changes {
		ev, err := bulletinevents.FromAnnouncement(ch)
		if err != nil {
			return err
		}
		if err := a.store.Apply(ctx, ch, ev); err != nil {
			return err
		}
	}
	return nil
}

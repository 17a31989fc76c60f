package app

import (
	"context"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// Announcements are the ambassador's use cases: post, pin, unpin.
type Announcements struct {
	// pinMoves serialises every change of pins across replicas (see
	// MoveLock). Each document's own write stays guarded by the
	// repository.
	pinMoves *MoveLock
	repo     domain.AnnouncementRepository
	clock    clock.Clock
}

// NewAnnouncements wires the use cases; moves is the pin moves' lock.
func NewAnnouncements(repo domain.AnnouncementRepository, moves *MoveLock, clk clock.Clock) *Announcements {
	return &Announcements{repo: repo, pinMoves: moves, clock: clk}
}

// Post publishes a new announcement, pinned unless the draft says
// pinned: false; a pinned post unpins the one pinned before. The unpins are
// written first: if the request fails half way, nothing is pinned twice,
// and repeating the request finishes the job. An unpinned post moves no
// pin, so it takes no lock: posts do not queue behind each other across
// replicas.
func (a *Announcements) Post(ctx context.Context, draft domain.AnnouncementDraft) (domain.Announcement, error) {
	if err := draft.Validate(); err != nil {
		return domain.Announcement{}, err
	}
	if draft.Pins() {
		unlock, err := a.pinMoves.Lock(ctx)
		if err != nil {
			return domain.Announcement{}, err
		}
		defer unlock()
	}
	pinnedNow, err := a.repo.Pinned(ctx)
	if err != nil {
		return domain.Announcement{}, err
	}
	now := a.clock.Now()
	plan, err := domain.PostAnnouncement(draft, pinnedNow, now)
	if err != nil {
		return domain.Announcement{}, err
	}
	if _, err := a.write(ctx, "", plan.Unpins, now); err != nil {
		return domain.Announcement{}, err
	}
	return a.repo.Add(ctx, plan.Announce)
}

// Pin pins the announcement and unpins any other.
func (a *Announcements) Pin(ctx context.Context, postID string) (domain.Announcement, error) {
	return a.change(ctx, postID, func(target domain.Announcement, pinnedNow []domain.Announcement, now time.Time) []domain.AnnouncementChange {
		return domain.PinAnnouncement(target, pinnedNow, now)
	})
}

// Unpin unpins the announcement.
func (a *Announcements) Unpin(ctx context.Context, postID string) (domain.Announcement, error) {
	return a.change(ctx, postID, func(target domain.Announcement, _ []domain.Announcement, now time.Time) []domain.AnnouncementChange {
		return domain.UnpinAnnouncement(target, now)
	})
}

func (a *Announcements) change(ctx context.Context, postID string,
	decide func(target domain.Announcement, pinnedNow []domain.Announcement, now time.Time) []domain.AnnouncementChange) (domain.Announcement, error) {
	if !domain.ValidPostID(postID) {
		return domain.Announcement{}, domain.ErrAnnouncementNotFound
	}
	unlock, err := a.pinMoves.Lock(ctx)
	if err != nil {
		return domain.Announcement{}, err
	}
	defer unlock()
	target, err := a.repo.Get(ctx, postID)
	if err != nil {
		return domain.Announcement{}, err
	}
	pinnedNow, err := a.repo.Pinned(ctx)
	if err != nil {
		return domain.Announcement{}, err
	}
	now := a.clock.Now()
	written, err := a.write(ctx, postID, decide(target, pinnedNow, now), now)
	if err != nil {
		return domain.Announcement{}, err
	}
	if written != nil {
		return *written, nil
	}
	return target, nil // nothing to change: as read
}

// write applies each planned pin change, in order. The plan was made from
// what was read; each change is decided again on the announcement as it is
// stored (SetPinned changes nothing when it already has that pin), so a
// change another writer made first is neither lost nor repeated. It returns
// the stored state of postID when the plan changed it.
func (a *Announcements) write(ctx context.Context, postID string, plan []domain.AnnouncementChange, now time.Time) (*domain.Announcement, error) {
	var target *domain.Announcement
	for _, ch := range plan {
		pinned := ch.Announcement.Pinned
		stored, err := a.repo.Update(ctx, ch.Announcement.PostID, func(cur *domain.Announcement) ([]domain.AnnouncementEvent, error) {
			return cur.SetPinned(pinned, now), nil
		})
		if err != nil {
			return nil, err
		}
		if ch.Announcement.PostID == postID {
			target = &stored
		}
	}
	return target, nil
}

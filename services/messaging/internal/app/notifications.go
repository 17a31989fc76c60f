package app

import (
	"context"
	"slices"
	"time"

	"sharedworld.dev/services/messaging/internal/domain"
)

// Reader is the citizen asking for notifications: who, and since when it
// lives (the broadcasts it sees start there).
type Reader struct {
	AgentID      string
	RegisteredAt time.Time
}

// NotificationPage is one page of a citizen's notifications.
type NotificationPage struct {
	Notifications []domain.Notification
	Unread        int64
	Next          *domain.Position
}

// audience finds where the reader's broadcasts start: the newest broadcast
// made before it registered (an index lookup, not a count).
func (a *App) audience(ctx context.Context, r Reader) (domain.Audience, error) {
	joined, err := a.repos.Notifications.JoinedSeq(ctx, r.RegisteredAt)
	return domain.Audience{Joined: joined}, err
}

// Notifications lists one page of the reader's notifications, newest first,
// merging the broadcasts it sees with its own, and counts its unread ones:
// a few index lookups and the read state, whatever the population or the
// number of broadcasts.
func (a *App) Notifications(ctx context.Context, r Reader, unreadOnly bool, after *domain.Position, limit int) (NotificationPage, error) {
	n := a.repos.Notifications
	aud, err := a.audience(ctx, r)
	if err != nil {
		return NotificationPage{}, err
	}
	st, err := n.ReadState(ctx, r.AgentID)
	if err != nil {
		return NotificationPage{}, err
	}
	latest, err := n.LatestSeq(ctx)
	if err != nil {
		return NotificationPage{}, err
	}
	from, skip := aud.Joined, []int64(nil)
	var unreadAfter *time.Time
	if unreadOnly {
		from = st.UnreadFrom(aud)
		skip = st.MarkedSeqs(from)
		t := st.PersonalBefore
		unreadAfter = &t
	}
	bs, err := n.Broadcasts(ctx, from, skip, after, limit+1)
	if err != nil {
		return NotificationPage{}, err
	}
	ps, err := n.Personals(ctx, r.AgentID, unreadAfter, after, limit+1)
	if err != nil {
		return NotificationPage{}, err
	}
	unreadPersonal, err := n.UnreadPersonals(ctx, r.AgentID, st.PersonalBefore)
	if err != nil {
		return NotificationPage{}, err
	}
	all := make([]domain.Notification, 0, len(bs)+len(ps))
	for _, b := range bs {
		all = append(all, fromBroadcast(b, st))
	}
	for _, p := range ps {
		all = append(all, fromPersonal(p, st))
	}
	slices.SortFunc(all, func(x, y domain.Notification) int {
		if domain.Newer(x, y) {
			return -1
		}
		return 1
	})
	page := NotificationPage{Unread: st.UnreadBroadcasts(aud, latest) + unreadPersonal}
	if len(all) > limit {
		all = all[:limit]
		last := all[limit-1]
		page.Next = &domain.Position{At: last.CreatedAt, ID: last.ID}
	}
	page.Notifications = all
	return page, nil
}

func fromBroadcast(b domain.Broadcast, st domain.ReadState) domain.Notification {
	return domain.Notification{ID: b.ID, Kind: b.Kind, Title: b.Title, PostID: b.PostID, RefID: b.RefID,
		CreatedAt: b.CreatedAt, ReadAt: st.BroadcastReadAt(b.Seq)}
}

func fromPersonal(p domain.Personal, st domain.ReadState) domain.Notification {
	return domain.Notification{ID: p.ID, Kind: p.Kind, Title: p.Title, RefID: p.RefID, CreatedAt: p.CreatedAt, ReadAt: st.PersonalReadAt(p)}
}

// ReadNotification marks one of the reader's notifications read,
// idempotently. A broadcast the reader never received and another
// citizen's notification are both 404.
func (a *App) ReadNotification(ctx context.Context, r Reader, id string) (domain.Notification, bool, error) {
	if !domain.ValidID(domain.NotificationPrefix, id) {
		return domain.Notification{}, false, domain.ErrNotificationNotFound(id)
	}
	n := a.repos.Notifications
	now := a.now()
	if b, ok, err := n.Broadcast(ctx, id); err != nil {
		return domain.Notification{}, false, err
	} else if ok {
		aud, err := a.audience(ctx, r)
		if err != nil {
			return domain.Notification{}, false, err
		}
		if !aud.Sees(b) {
			return domain.Notification{}, false, domain.ErrNotificationNotFound(id)
		}
		var already bool
		st, err := n.ChangeReadState(ctx, r.AgentID, func(st *domain.ReadState) error {
			_, already = st.MarkBroadcast(b.Seq, now)
			if already {
				return domain.ErrUnchanged
			}
			return nil
		})
		if err != nil {
			return domain.Notification{}, false, err
		}
		return fromBroadcast(b, st), already, nil
	}
	p, ok, err := n.Personal(ctx, id)
	if err != nil {
		return domain.Notification{}, false, err
	}
	if !ok || p.AgentID != r.AgentID {
		return domain.Notification{}, false, domain.ErrNotificationNotFound(id)
	}
	st, err := n.ReadState(ctx, r.AgentID)
	if err != nil {
		return domain.Notification{}, false, err
	}
	if st.PersonalReadAt(p) != nil {
		return fromPersonal(p, st), true, nil
	}
	var already bool
	p, err = n.MarkPersonal(ctx, id, func(p *domain.Personal) error {
		if already = p.ReadAt != nil; already {
			return domain.ErrUnchanged
		}
		p.ReadAt = &now
		return nil
	})
	if err != nil {
		return domain.Notification{}, false, err
	}
	return fromPersonal(p, st), already, nil
}

// ReadAll marks every notification the reader has now read: one write of
// its read state, whatever it had unread.
func (a *App) ReadAll(ctx context.Context, r Reader) (time.Time, error) {
	latest, err := a.repos.Notifications.LatestSeq(ctx)
	if err != nil {
		return time.Time{}, err
	}
	now := a.now()
	_, err = a.repos.Notifications.ChangeReadState(ctx, r.AgentID, func(st *domain.ReadState) error {
		st.MarkAll(latest, now)
		return nil
	})
	return now, err
}

// Broadcast stores a notification for every citizen living now in one
// write (an announcement, an election opening, a decided proposal); a
// redelivered event changes nothing.
func (a *App) Broadcast(ctx context.Context, b domain.Broadcast) error {
	b.CreatedAt = clockStored(b.CreatedAt)
	stored, err := a.repos.Notifications.AddBroadcast(ctx, b)
	if err != nil || !stored {
		return err
	}
	// The audience is counted for the metric only; nothing is written per citizen.
	if n, err := a.residents.Population(ctx); err == nil {
		a.obs.NotificationsDelivered(string(b.Kind), int64(n))
	}
	return nil
}

// Notify stores a personal notification, once per key.
func (a *App) Notify(ctx context.Context, p domain.Personal) error {
	p.CreatedAt = clockStored(p.CreatedAt)
	return a.repos.Notifications.AddPersonal(ctx, func(id string) domain.Personal {
		p.ID = id
		return p
	})
}

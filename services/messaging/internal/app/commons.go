package app

import (
	"context"
	"errors"

	"sharedworld.dev/services/messaging/internal/domain"
)

// Channel is a commons channel and its post count.
type Channel struct {
	Name  string
	Posts int64
}

// Channels lists the commons channels in the seed's order with their counts.
func (a *App) Channels(ctx context.Context) ([]Channel, error) {
	counts, err := a.repos.Commons.Counts(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Channel, len(domain.Channels))
	for i, c := range domain.Channels {
		out[i] = Channel{Name: c, Posts: counts[c]}
	}
	return out, nil
}

// PostPage is one page of a channel.
type PostPage struct {
	Posts []domain.Post
	Next  *domain.Position
}

// ChannelPosts lists one page of a channel, newest first.
func (a *App) ChannelPosts(ctx context.Context, channel string, after *domain.Position, limit int) (PostPage, error) {
	ch, err := domain.ParseChannel(channel)
	if err != nil {
		return PostPage{}, err
	}
	ps, err := a.repos.Commons.List(ctx, ch, after, limit+1)
	if err != nil {
		return PostPage{}, err
	}
	var p PostPage
	if len(ps) > limit {
		ps = ps[:limit]
		last := ps[limit-1]
		p.Next = &domain.Position{At: last.PostedAt, ID: last.ID}
	}
	p.Posts = ps
	return p, nil
}

// postAttempts bounds how often a post decides again after a racing post
// of the same citizen took its slot.
const postAttempts = 4

// Post publishes a citizen's post (or, on announcements, the ambassador's:
// author domain.AmbassadorAuthor, no limits). The text is checked first and
// the limits are decided on the citizen's latest post, so a refused request
// takes no slot.
func (a *App) Post(ctx context.Context, author, channel string, req domain.PostRequest) (domain.Post, error) {
	ch, err := domain.ParseChannel(channel)
	if err != nil {
		return domain.Post{}, err
	}
	text, err := domain.ParsePost(req)
	if err != nil {
		return domain.Post{}, err
	}
	for attempt := 0; attempt < postAttempts; attempt++ {
		now := a.now()
		latest, err := a.repos.Commons.Latest(ctx, author)
		if err != nil {
			return domain.Post{}, err
		}
		slot := 0 // the ambassador's posts take no daily slot
		if author != domain.AmbassadorAuthor {
			if slot, err = domain.NextSlot(latest, now); err != nil {
				return domain.Post{}, err
			}
		}
		p, err := a.repos.Commons.Post(ctx, author, domain.Day(now), slot, func(id string) (domain.Post, domain.CommonsPosted) {
			p := domain.Post{ID: id, Channel: ch, AgentID: author, Title: text.Title, Content: text.Content, PostedAt: now}
			return p, domain.CommonsPosted{Post: p}
		})
		if errors.Is(err, domain.ErrSlotTaken) {
			continue
		}
		if err != nil {
			return domain.Post{}, err
		}
		a.obs.CommonsPosted(ch)
		return p, nil
	}
	return domain.Post{}, domain.ErrBusy
}

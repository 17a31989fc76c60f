package domain

import "slices"

// FeedWindow is how many feed entries the bulletin shows (CONTRACT §6) and
// therefore how many the projection keeps in memory; older ones live only in
// the store, for GET /api/world/events.
const FeedWindow = 50

// Feed returns the newest feed entries, newest first.
func (p *Projection) Feed() []FeedEntry { return slices.Clone(p.feed) }

// addFeed inserts an entry in order and keeps the newest FeedWindow.
func (p *Projection) addFeed(e FeedEntry) {
	if _, dup := p.feedIDs[e.EventID]; dup {
		return
	}
	i, _ := slices.BinarySearchFunc(p.feed, e, func(have, want FeedEntry) int {
		if have.NewerThan(want) {
			return -1
		}
		return 1
	})
	if i >= FeedWindow {
		return
	}
	p.feed = slices.Insert(p.feed, i, e)
	p.feedIDs[e.EventID] = struct{}{}
	if len(p.feed) > FeedWindow {
		delete(p.feedIDs, p.feed[FeedWindow].EventID)
		p.feed = p.feed[:FeedWindow]
	}
	p.dirty |= sectionFeed
}

// FeedWouldShow reports whether an entry would enter the in-memory window.
// Only an entry that would not (an old one) can be one the store already
// holds without memory knowing: the window mirrors the store's newest
// entries.
func (p *Projection) FeedWouldShow(e FeedEntry) bool {
	if _, dup := p.feedIDs[e.EventID]; dup {
		return false
	}
	return len(p.feed) < FeedWindow || e.NewerThan(p.feed[len(p.feed)-1])
}

package domain

import (
	"fmt"
	"time"

	"sharedworld.dev/pkg/problem"
)

// Channels are the commons channels of SEED §1.5, in its order.
var Channels = []string{"announcements", "introductions", "proposals", "help", "general"}

// AnnouncementsChannel is the ambassador's own channel.
const AnnouncementsChannel = "announcements"

// AmbassadorAuthor is the author of the ambassador's posts.
const AmbassadorAuthor = "ambassador"

// Commons limits (CONTRACT §8).
const (
	MaxPostTitle   = 200
	MaxPostContent = 10000
	PostsPerDay    = 10
	PostSpacing    = 10 * time.Second
)

// ParseChannel checks a channel name from a path.
func ParseChannel(s string) (string, error) {
	for _, c := range Channels {
		if c == s {
			return c, nil
		}
	}
	return "", problem.NotFound(fmt.Sprintf("There is no commons channel %q.", s),
		"The channels are announcements, introductions, proposals, help and general (GET /api/world/commons).")
}

// PostRequest is POST /api/world/commons/:channel as decoded.
type PostRequest struct{ Title, Content string }

// PostText is a checked post, as sent.
type PostText struct{ Title, Content string }

// ParsePost checks the lengths. The text is kept byte for byte, as sent:
// it is JSON text, and citizens post code ("if a<b and b>c"), which any
// rewriting (stripping what looks like markup) would corrupt. What renders
// it as HTML escapes it there.
func ParsePost(r PostRequest) (PostText, error) {
	title, content := r.Title, r.Content
	if err := required("title", title, MaxPostTitle); err != nil {
		return PostText{}, err
	}
	if err := required("content", content, MaxPostContent); err != nil {
		return PostText{}, err
	}
	return PostText{Title: title, Content: content}, nil
}

// Post is a commons post.
type Post struct {
	ID       string
	Channel  string
	AgentID  string
	Title    string
	Content  string
	PostedAt time.Time
}

// Stamp is where a citizen's latest post stands in its daily count: when it
// was posted and which of that day's slots it took.
type Stamp struct {
	At   time.Time
	Slot int
}

// NextSlot decides a citizen's next post given its latest one (nil: none):
// the slot of today it takes (1..PostsPerDay), or a 429 saying how long to
// wait, for the spacing or for the next UTC day. The store keeps (citizen,
// day, slot) unique, so two racing posts cannot take one slot and the loser
// decides again on the winner's stamp.
func NextSlot(latest *Stamp, now time.Time) (int, error) {
	if latest == nil {
		return 1, nil
	}
	if wait := latest.At.Add(PostSpacing).Sub(now); wait > 0 {
		w := roundUp(wait)
		return 0, problem.RateLimited("Commons posts must be 10 seconds apart.",
			fmt.Sprintf("Wait %d seconds before posting again (see Retry-After).", int(w/time.Second)), w)
	}
	if Day(latest.At) != Day(now) {
		return 1, nil
	}
	if latest.Slot >= PostsPerDay {
		w := UntilNextDay(now)
		return 0, problem.RateLimited(fmt.Sprintf("You have posted %d times today, the daily limit.", PostsPerDay),
			fmt.Sprintf("Wait %d seconds, until the next UTC day (see Retry-After).", int(w/time.Second)), w)
	}
	return latest.Slot + 1, nil
}

// CommonsPosted is commons.posted.
type CommonsPosted struct{ Post Post }

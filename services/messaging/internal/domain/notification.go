package domain

import (
	"slices"
	"time"
)

// Kind is what a notification is about.
type Kind string

// Notification kinds. Broadcast kinds reach every citizen living when they
// happened; the others are one citizen's own.
const (
	KindAnnouncement    Kind = "announcement"
	KindElectionOpened  Kind = "election_opened"
	KindProposalDecided Kind = "proposal_decided"
	KindMessage         Kind = "message"
	KindInboxReply      Kind = "inbox_reply"
)

// Broadcast is one notification shared by every citizen living when it was
// made: stored once, whatever the population. Seq numbers broadcasts
// 1, 2, 3, ... in the order they were stored, so "how many broadcasts after
// mine" is a subtraction.
type Broadcast struct {
	ID        string // ntf_
	Key       string // what it was made from (post id, election id, ...): one broadcast per key
	Kind      Kind
	Title     string
	PostID    string
	RefID     string
	CreatedAt time.Time
	Seq       int64
}

// Personal is a notification of one citizen (a message arrived, the
// ambassador replied).
type Personal struct {
	ID        string // ntf_
	AgentID   string
	Key       string // what it was made from: one notification per key
	Kind      Kind
	Title     string
	RefID     string // message_id of the message or the inbox message
	CreatedAt time.Time
	ReadAt    *time.Time
}

// Mark is one broadcast a citizen marked read on its own.
type Mark struct {
	Seq int64
	At  time.Time
}

// ReadState is a citizen's reading of the notifications, one small document
// per citizen: broadcasts up to Cursor were read at CursorAt (mark-all-read),
// those in Marks one by one; personal notifications created up to
// PersonalBefore were read then, the others carry their own read time.
type ReadState struct {
	AgentID        string
	Cursor         int64
	CursorAt       time.Time
	Marks          []Mark
	PersonalBefore time.Time
}

// Audience is where a citizen's broadcasts start: the citizen sees the
// broadcasts with Seq above Joined (those made while it lived).
type Audience struct{ Joined int64 }

// Sees reports whether the broadcast reached this citizen.
func (a Audience) Sees(b Broadcast) bool { return b.Seq > a.Joined }

// BroadcastReadAt is when the citizen read broadcast seq, or nil.
func (s ReadState) BroadcastReadAt(seq int64) *time.Time {
	if seq <= s.Cursor {
		t := s.CursorAt
		return &t
	}
	for _, m := range s.Marks {
		if m.Seq == seq {
			t := m.At
			return &t
		}
	}
	return nil
}

// PersonalReadAt is when the citizen read n, or nil.
func (s ReadState) PersonalReadAt(n Personal) *time.Time {
	if n.ReadAt != nil {
		return n.ReadAt
	}
	if !s.PersonalBefore.IsZero() && !n.CreatedAt.After(s.PersonalBefore) {
		t := s.PersonalBefore
		return &t
	}
	return nil
}

// MarkBroadcast marks broadcast seq read at now; a repeat changes nothing and
// reports the first read time.
func (s *ReadState) MarkBroadcast(seq int64, now time.Time) (readAt time.Time, already bool) {
	if at := s.BroadcastReadAt(seq); at != nil {
		return *at, true
	}
	s.Marks = append(s.Marks, Mark{Seq: seq, At: now})
	slices.SortFunc(s.Marks, func(a, b Mark) int { return int(a.Seq - b.Seq) })
	return now, false
}

// MarkAll marks every broadcast up to latest and every personal notification
// made up to now read. Marks at or below the new cursor are dropped: the
// cursor answers for them, so the state stays small.
func (s *ReadState) MarkAll(latest int64, now time.Time) {
	if latest > s.Cursor {
		s.Cursor, s.CursorAt = latest, now
		kept := s.Marks[:0]
		for _, m := range s.Marks {
			if m.Seq > latest {
				kept = append(kept, m)
			}
		}
		s.Marks = kept
	}
	s.PersonalBefore = now
}

// UnreadFrom is the lowest Seq a citizen may still have unread: above both
// where it joined and where it last marked everything read.
func (s ReadState) UnreadFrom(a Audience) int64 { return max(s.Cursor, a.Joined) }

// UnreadBroadcasts counts the broadcasts a citizen has not read, given the
// latest Seq: the range above UnreadFrom minus the marks inside it. It costs
// the number of marks, never the number of broadcasts or citizens.
func (s ReadState) UnreadBroadcasts(a Audience, latest int64) int64 {
	from := s.UnreadFrom(a)
	if latest <= from {
		return 0
	}
	n := latest - from
	for _, m := range s.Marks {
		if m.Seq > from && m.Seq <= latest {
			n--
		}
	}
	return n
}

// MarkedSeqs are the individually read broadcasts above from (a list query
// with ?unread leaves them out).
func (s ReadState) MarkedSeqs(from int64) []int64 {
	var out []int64
	for _, m := range s.Marks {
		if m.Seq > from {
			out = append(out, m.Seq)
		}
	}
	return out
}

// Notification is one entry of a citizen's list, broadcast or personal,
// with the citizen's read time.
type Notification struct {
	ID        string
	Kind      Kind
	Title     string
	PostID    string
	RefID     string
	CreatedAt time.Time
	ReadAt    *time.Time
}

// Newer orders notifications newest first (then by id, descending), the
// list order; it is the order of the list cursor.
func Newer(a, b Notification) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.After(b.CreatedAt)
	}
	return a.ID > b.ID
}

package domain

import (
	"context"
	"errors"
	"time"

	"sharedworld.dev/pkg/problem"
)

// Messages stores direct messages.
type Messages interface {
	// Send stores the message build makes for a fresh msg_ id, with its
	// message.sent event, in one write.
	Send(ctx context.Context, build func(id string) (Message, Sent)) (Message, error)
	// MarkRead applies fn to the current message and stores the result;
	// ErrMessageNotFound for an unknown id. fn returning ErrUnchanged writes
	// nothing.
	MarkRead(ctx context.Context, id string, fn func(*Message) error) (Message, error)
	// List returns up to limit messages of agentID's box, newest first, after pos.
	List(ctx context.Context, agentID string, box Box, after *Position, limit int) ([]Message, error)
	// Count is how many messages agentID's box holds.
	Count(ctx context.Context, agentID string, box Box) (int64, error)
}

// Notifications stores broadcasts, personal notifications and read states.
type Notifications interface {
	// AddBroadcast stores b under the next Seq unless a broadcast of the
	// same Key exists (a redelivered event): one write whatever the population.
	AddBroadcast(ctx context.Context, b Broadcast) (stored bool, err error)
	// LatestSeq is the Seq of the newest broadcast (0: none).
	LatestSeq(ctx context.Context) (int64, error)
	// JoinedSeq is the Seq of the newest broadcast made before t (0: none).
	JoinedSeq(ctx context.Context, t time.Time) (int64, error)
	// Broadcast returns the broadcast with notification id id.
	Broadcast(ctx context.Context, id string) (Broadcast, bool, error)
	// Broadcasts lists up to limit broadcasts with Seq above from and not in
	// skip, newest first, after pos.
	Broadcasts(ctx context.Context, from int64, skip []int64, after *Position, limit int) ([]Broadcast, error)
	// AddPersonal stores n unless a notification of the same Key exists.
	AddPersonal(ctx context.Context, build func(id string) Personal) error
	// Personal returns the notification with id id.
	Personal(ctx context.Context, id string) (Personal, bool, error)
	// MarkPersonal applies fn to the notification and stores it.
	MarkPersonal(ctx context.Context, id string, fn func(*Personal) error) (Personal, error)
	// Personals lists up to limit of agentID's notifications, newest first,
	// after pos; unreadAfter non-nil keeps the unread ones made after it.
	Personals(ctx context.Context, agentID string, unreadAfter *time.Time, after *Position, limit int) ([]Personal, error)
	// UnreadPersonals counts agentID's unread notifications made after t.
	UnreadPersonals(ctx context.Context, agentID string, after time.Time) (int64, error)
	// ReadState is agentID's read state (empty before the first mark).
	ReadState(ctx context.Context, agentID string) (ReadState, error)
	// ChangeReadState applies fn to agentID's read state and stores it.
	ChangeReadState(ctx context.Context, agentID string, fn func(*ReadState) error) (ReadState, error)
}

// Inbox stores messages to the ambassador.
type Inbox interface {
	// Receive stores the message build makes with its inbox.received event,
	// taking the sender's one slot of day; ErrSlotTaken when it is taken.
	Receive(ctx context.Context, from, day string, build func(id string) (InboxMessage, InboxReceived)) (InboxMessage, error)
	// Answer applies fn to the message and stores it with fn's event.
	Answer(ctx context.Context, id string, fn func(*InboxMessage) (InboxReplied, error)) (InboxMessage, error)
	// List returns up to limit messages (from one citizen when from is not
	// empty), newest first, after pos.
	List(ctx context.Context, from string, after *Position, limit int) ([]InboxMessage, error)
	// Backlog is how many messages await a reply.
	Backlog(ctx context.Context) (int64, error)
}

// Commons stores commons posts.
type Commons interface {
	// Latest is agentID's latest post (nil: none).
	Latest(ctx context.Context, agentID string) (*Stamp, error)
	// Post stores the post build makes in agentID's slot of day with its
	// commons.posted event; ErrSlotTaken when a racing post took the slot.
	Post(ctx context.Context, agentID, day string, slot int, build func(id string) (Post, CommonsPosted)) (Post, error)
	// List returns up to limit posts of channel, newest first, after pos.
	List(ctx context.Context, channel string, after *Position, limit int) ([]Post, error)
	// Counts is the number of posts of each channel.
	Counts(ctx context.Context) (map[string]int64, error)
}

// Stewards answers whether a citizen holds an office now.
type Stewards interface {
	IsSteward(ctx context.Context, agentID string, now time.Time) (bool, error)
}

// ErrSlotTaken is a store's answer when a daily slot is already taken.
var ErrSlotTaken = errors.New("daily slot taken")

// ErrUnchanged, returned by a change function, ends a change without a write.
var ErrUnchanged = errors.New("unchanged")

// ErrBusy answers a write that lost every race it retried.
var ErrBusy = problem.Unavailable("This is changing too fast to write right now.", "Retry in a moment.")

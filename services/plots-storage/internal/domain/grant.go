package domain

import (
	"errors"
	"fmt"
	"time"
)

// Garden grants. A garden write takes its room on one account: its
// planter's share (or, for the index and files planted before plantings
// were recorded, the garden's own account). A share draws the room it
// takes from the garden in grants, and the garden's account counts what it
// granted. So plantings by different citizens change different documents,
// and the garden's account changes only when a share runs out of granted
// room or gives some back, once in several plantings. The cap stays exact:
// the garden grants nothing past its quota and a share takes nothing past
// its grant, so every share's files and bytes together stay within it.
//
// A grant moves room between two documents, so it is a hold on the
// garden's account like a write's (hold.go): numbered by the share's grant
// sequence (one grant of a share at a time), taken on the garden first,
// accepted by the share only while the hold is alive, then confirmed on
// the garden. A hold left by a crash is settled by the share's sequence: a
// share whose sequence reached the grant's number accepted it. A return
// (room the share no longer uses) is the same with Frees for Change, so
// the garden gets the room back only once the share gave it up.

// The slack a grant adds to what a write needs: at most GrantFiles files
// and GrantBytes bytes, and never more than 1/GrantSpread of the garden's
// room left, so the room shares hold unused shrinks as the garden fills,
// to nothing in its last GrantSpread files. A share keeps at most this
// slack unused; the rest goes back to the garden.
const (
	GrantFiles  = 4
	GrantBytes  = 64 * 1024
	GrantSpread = 1024
)

// ErrGrantPending: a grant of this share is being taken (its hold is on
// the garden's account); read the share again.
var ErrGrantPending = errors.New("a grant of this share is in progress")

// ErrGrantStale: the share no longer takes this grant (another was taken
// first, its hold lapsed, or room it returns is in use again).
var ErrGrantStale = errors.New("the grant no longer applies")

// GrantHoldID is the id of a share's n-th grant: one hold per number.
func GrantHoldID(share string, n int64) string { return fmt.Sprintf("grant:%s:%d", share, n) }

// GrantFor is the room a share asks of the garden (usage g within q) when
// it lacks short: short itself, and slack on both axes.
func GrantFor(short Change, g Usage, q Quota) Change {
	c := Change{Bytes: max(short.Bytes, 0), Files: max(short.Files, 0)}
	c.Files += min(max((q.Files-g.Files-c.Files)/GrantSpread, 0), GrantFiles)
	c.Bytes += min(max((q.Bytes-g.Bytes-c.Bytes)/GrantSpread, 0), GrantBytes)
	return c
}

// GrantHold is the hold of a share's grant number n moving delta: a grant
// takes room on the garden (Change), a return gives it back once it landed
// (Frees).
func GrantHold(share string, n int64, delta Change, until time.Time) Hold {
	h := Hold{ID: GrantHoldID(share, n), Path: share, Grant: n, Until: until}
	if delta.Files < 0 || delta.Bytes < 0 {
		h.Frees = delta
	} else {
		h.Change = delta
	}
	return h
}

// adopt: a share counted before grants had its room taken on the garden
// one write at a time, so what it uses is what it was granted.
func (a *Account) adopt() {
	if a.GrantSeq == 0 && a.Granted == (Usage{}) {
		a.Granted = a.Usage
	}
}

// Short is what the share lacks of its grant to take c (zero: it fits).
func (a *Account) Short(c Change) Change {
	a.adopt()
	var s Change
	if c.Files > 0 {
		s.Files = max(a.Files+c.Files-a.Granted.Files, 0)
	}
	if c.Bytes > 0 {
		s.Bytes = max(a.Bytes+c.Bytes-a.Granted.Bytes, 0)
	}
	return s
}

// ReserveShare takes h's room on a share within q (413 otherwise) and
// within its grant; when the grant is short it changes nothing and returns
// what is missing, to be granted first.
func (a *Account) ReserveShare(h Hold, q Quota) (short Change, err error) {
	if !a.AdmitsWithin(h.Change, q) {
		return Change{}, q.exceeded(a.Usage, h.Change)
	}
	if short = a.Short(h.Change); short != (Change{}) {
		return short, nil
	}
	return Change{}, a.ReserveWithin(h, q)
}

// ReserveGrant records a grant's hold on the garden within q; a hold of
// the same number already recorded is ErrGrantPending.
func (a *Account) ReserveGrant(h Hold, q Quota) error {
	for _, o := range a.Holds {
		if o.ID == h.ID {
			return ErrGrantPending
		}
	}
	return a.ReserveWithin(h, q)
}

// AcceptGrant takes the grant of h into the share at now: the next number
// only, while the hold is alive, and a return only of room not in use.
func (a *Account) AcceptGrant(h Hold, now time.Time) error {
	a.adopt()
	if h.Grant != a.GrantSeq+1 || now.After(h.Until) {
		return ErrGrantStale
	}
	next := a.Granted
	next.Apply(h.Change)
	next.Apply(h.Frees)
	if next.Files < a.Files || next.Bytes < a.Bytes {
		return ErrGrantStale
	}
	a.Granted, a.GrantSeq = next, h.Grant
	return nil
}

// Surplus is the granted room the share holds beyond what it uses and a
// grant's slack, as a (negative) change to give back.
func (a *Account) Surplus() Change {
	return Change{Files: -max(a.Granted.Files-a.Files-GrantFiles, 0),
		Bytes: -max(a.Granted.Bytes-a.Bytes-GrantBytes, 0)}
}

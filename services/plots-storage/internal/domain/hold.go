package domain

import (
	"time"

	"sharedworld.dev/pkg/clock"
)

// A write takes its room from the quota before it writes its file, and a
// crash in between must not keep that room for good. So each reservation
// is a Hold recorded with the usage it was added to: the file's head names
// the hold that wrote it, and a hold still recorded after it lapsed is
// settled by that head, counted if it landed, given back if not.

// HoldLife bounds a write: its file lands before its hold's Until or not at
// all (the head's change refuses a lapsed hold).
const HoldLife = time.Minute

// HoldGrace is how long after Until a hold is still taken for alive: it
// covers the time between the head's check of Until and its write reaching
// the database.
const HoldGrace = time.Minute

// Hold is one write's reservation, for the file at Path of PlotID: Change
// is taken when the hold is reserved (and given back if its write does not
// land), Frees is given back once the write is known to have landed (the
// room of the version a removal takes away). Space is thus taken early and
// given back late, so an account never understates what it holds. One
// write may hold room on several accounts (the garden's, a planter's
// share) under one id: the head it writes names that id, which settles
// each of them.
type Hold struct {
	ID     string
	PlotID string
	Path   string
	Change Change
	Frees  Change
	Until  time.Time
	// Grant numbers a share's grant (grant.go); zero for a write's hold.
	Grant int64
}

// Empty reports whether h moves no usage at all (nothing to record).
func (h Hold) Empty() bool { return h.ID == "" || (h.Change == Change{} && h.Frees == Change{}) }

// Lapsed reports whether no write can land under h any more at now.
func (h Hold) Lapsed(now time.Time) bool { return now.After(h.Until.Add(HoldGrace)) }

// Account is a tenancy's usage with the holds whose writes are not known
// to have landed. Usage counts every hold.
type Account struct {
	Usage
	Holds []Hold
	// Stamped is the time of the last write Stamp dated.
	Stamped time.Time
	// Granted is the room a garden share drew from the garden, and
	// GrantSeq the number of its last grant (grant.go).
	Granted  Usage
	GrantSeq int64
}

// Stamp dates a write taken on the account at now: later than every write
// it dated before, by a stored time's precision at least. A garden event
// carries the file count its hold saw and the bulletin keeps the latest
// event's count, so the garden's events must be dated in the order their
// holds were taken; two writers dating themselves before taking their
// holds could otherwise leave the latest date on the smaller count.
func (a *Account) Stamp(now time.Time) time.Time {
	at := clock.Stored(now)
	if !at.After(a.Stamped) {
		at = a.Stamped.Add(clock.Precision)
	}
	a.Stamped = at
	return at
}

// Expected is the usage once every recorded hold landed: Usage already
// counts what the holds take, and what they free comes back only once they
// land. A garden event carries the count its hold saw, so a planting racing
// a removal counts the removed file out, as the garden will once both land.
func (a *Account) Expected() Usage {
	u := a.Usage
	for _, h := range a.Holds {
		u.Apply(h.Frees)
	}
	return u
}

// Reserve takes h's room if the plot quota admits it (413 otherwise).
func (a *Account) Reserve(h Hold) error { return a.ReserveWithin(h, PlotQuota) }

// ReserveWithin takes h's room if q admits it (413 otherwise) and records
// h until its write is known to have landed. A hold that moves nothing
// needs no record: nothing of it can be left behind.
func (a *Account) ReserveWithin(h Hold, q Quota) error {
	if err := a.TakeWithin(h.Change, q); err != nil {
		return err
	}
	if !h.Empty() {
		a.Holds = append(a.Holds, h)
	}
	return nil
}

// Confirm keeps the room of the hold id, whose write landed, gives back
// what it frees, and forgets the hold. An unknown id (settled already, or
// never recorded) is nothing.
func (a *Account) Confirm(id string) {
	if h, ok := a.drop(id); ok {
		a.Apply(h.Frees)
	}
}

// Release gives back the room of the hold id, whose write did not land.
func (a *Account) Release(id string) {
	if h, ok := a.drop(id); ok {
		a.Apply(h.Change.Negate())
	}
}

// Has reports whether the hold id is recorded.
func (a *Account) Has(id string) bool {
	for _, h := range a.Holds {
		if h.ID == id {
			return true
		}
	}
	return false
}

func (a *Account) drop(id string) (Hold, bool) {
	for i, h := range a.Holds {
		if h.ID == id {
			a.Holds = append(a.Holds[:i:i], a.Holds[i+1:]...)
			return h, true
		}
	}
	return Hold{}, false
}

// Settle confirms or releases every hold landed decides (true: its file
// landed) and returns the holds dead says are over that landed does not
// decide yet (their heads must be read first) and those it released.
func (a *Account) Settle(dead func(Hold) bool, landed map[string]bool) (undecided, released []Hold) {
	for _, h := range append([]Hold(nil), a.Holds...) {
		if !dead(h) {
			continue
		}
		did, known := landed[h.ID]
		switch {
		case !known:
			undecided = append(undecided, h)
		case did:
			a.Confirm(h.ID)
		default:
			a.Release(h.ID)
			released = append(released, h)
		}
	}
	return undecided, released
}

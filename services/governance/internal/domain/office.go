package domain

import "time"

// Term is one steward's term in an office.
type Term struct {
	AgentID    string
	Start, End time.Time
	// Number counts the agent's consecutive terms in this office (1..3).
	Number     int
	ElectionID string
}

// Reasons a term ends early or on time (steward.term_ended).
const (
	EndExpired  = "expired"
	EndRecalled = "recalled"
)

// OfficeState is one office: its running term, the last term held (for
// counting consecutive terms), the election in progress, and since when
// it has stood empty.
type OfficeState struct {
	Role    Office
	Current *Term
	// Last is the most recent term, running or ended. Terms are
	// consecutive while no other steward held the office in between.
	Last         *Term
	OpenElection string
	// EmptiedAt is when the office last lost its steward or its election
	// closed without a winner: the moment a new election is due.
	EmptiedAt time.Time
	Version   uint64
}

// Consecutive is how many consecutive terms agentID has just served here.
func (o *OfficeState) Consecutive(agentID string) int {
	if o.Last != nil && o.Last.AgentID == agentID {
		return o.Last.Number
	}
	return 0
}

// NeedsElection reports whether the office has neither a steward nor an
// election in progress, and from when a new election is due (firstRound
// when the office never had one).
func (o *OfficeState) NeedsElection(firstRound time.Time) (time.Time, bool) {
	if o.Current != nil || o.OpenElection != "" {
		return time.Time{}, false
	}
	if o.EmptiedAt.IsZero() {
		return firstRound, true
	}
	return o.EmptiedAt, true
}

// Expire ends the running term once now reaches its end, at the end.
func (o *OfficeState) Expire(now time.Time) (StewardTermEnded, bool) {
	if o.Current == nil || now.Before(o.Current.End) {
		return StewardTermEnded{}, false
	}
	return o.end(o.Current.End, EndExpired), true
}

// ApplyRecall ends the term a passed recall names, at the decision: only
// if that very term (agent and start) is still running.
func (o *OfficeState) ApplyRecall(t RecallTarget, at time.Time) (StewardTermEnded, bool) {
	c := o.Current
	if c == nil || c.AgentID != t.AgentID || !c.Start.Equal(t.TermStart) || at.Before(c.Start) {
		return StewardTermEnded{}, false
	}
	return o.end(at, EndRecalled), true
}

func (o *OfficeState) end(at time.Time, reason string) StewardTermEnded {
	ev := StewardTermEnded{Role: o.Role, AgentID: o.Current.AgentID, EndedAt: at, Reason: reason}
	o.Current, o.EmptiedAt = nil, at
	o.Version++
	return ev
}

// Link records the election opened for the office.
func (o *OfficeState) Link(electionID string) bool {
	if o.Current != nil || o.OpenElection != "" {
		return false
	}
	o.OpenElection = electionID
	o.Version++
	return true
}

// Install takes in the closed election e linked to the office: its winner
// becomes steward from the close for 30 days, numbered after their
// consecutive terms; without a winner the office stays vacant from the
// close. It returns the steward.elected event when there is a winner.
func (o *OfficeState) Install(e Election) (ev *StewardElected, changed bool) {
	if o.OpenElection != e.ID || e.Status != Closed {
		return nil, false
	}
	o.OpenElection = ""
	o.Version++
	if e.Winner == "" || o.Consecutive(e.Winner) >= MaxConsecutive {
		o.EmptiedAt = e.ClosedAt
		return nil, true
	}
	t := Term{AgentID: e.Winner, Start: e.ClosedAt, End: e.ClosedAt.Add(TermLength), Number: o.Consecutive(e.Winner) + 1, ElectionID: e.ID}
	o.Current, o.Last = &t, &t
	return &StewardElected{Role: o.Role, Term: t}, true
}

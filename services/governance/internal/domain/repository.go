package domain

import (
	"context"
	"errors"
	"time"
)

// ErrNoChange is returned by a change function that has nothing to write.
var ErrNoChange = errors.New("nothing to change")

// ErrSlotsTaken is the store's answer when every daily proposal slot is taken.
var ErrSlotsTaken = errors.New("every daily proposal slot is taken")

// ErrLeaseHeld is the answer when another check holds the lease.
var ErrLeaseHeld = errors.New("another governance check holds the lease")

// ProposalQuery selects one page of proposals, newest first.
type ProposalQuery struct {
	Status *ProposalStatus
	Type   *ProposalType
	After  *Position
	Limit  int // 0: all
}

// Position is a proposal's place in the list: newest created_at first,
// then the greater id.
type Position struct {
	CreatedAt time.Time
	ID        string
}

// ElectionQuery filters the election list.
type ElectionQuery struct {
	Status *ElectionStatus
	Role   *Office
}

// Repository keeps proposals, elections and offices. Each change runs fn
// on the current aggregate and stores the result with fn's events in one
// write; fn may run again when another writer raced it, so it is a pure
// function of the aggregate, and it returns ErrNoChange to write nothing.
type Repository interface {
	// Propose stores the proposal build makes in the proposer's first free
	// slot of day; ErrSlotsTaken when none is free.
	Propose(ctx context.Context, by, day string, slots []int, build func(id string) (*Proposal, ProposalCreated)) (Proposal, error)
	Proposal(ctx context.Context, id string) (*Proposal, error)
	ChangeProposal(ctx context.Context, id string, fn func(*Proposal) ([]Event, error)) (Proposal, error)
	Proposals(ctx context.Context, q ProposalQuery) ([]Proposal, error)
	// CountProposals counts proposals by status, over all proposals.
	CountProposals(ctx context.Context) (map[ProposalStatus]int64, error)
	// DueProposals are the undecided proposals whose next deadline is at
	// or before now, and the passed recalls not yet applied.
	DueProposals(ctx context.Context, now time.Time) ([]Proposal, error)

	// OpenElection stores the election build makes for role at at, once:
	// a second call for the same role and instant returns the first.
	OpenElection(ctx context.Context, role Office, at time.Time, build func(id string) (*Election, ElectionOpened)) (Election, error)
	Election(ctx context.Context, id string) (*Election, error)
	ChangeElection(ctx context.Context, id string, fn func(*Election) ([]Event, error)) (Election, error)
	Elections(ctx context.Context, q ElectionQuery) ([]Election, error)
	// FirstElectionAt is when the first election opened; false if none has.
	FirstElectionAt(ctx context.Context) (time.Time, bool, error)

	// Offices returns all five offices (empty ones for those never held).
	Offices(ctx context.Context) ([]OfficeState, error)
	ChangeOffice(ctx context.Context, role Office, fn func(*OfficeState) ([]Event, error)) (OfficeState, error)
}

// Population counts living citizens.
type Population interface {
	Living(ctx context.Context) (int64, error)
}

// Lease lets one check run at a time across processes.
type Lease interface {
	// Acquire takes the lease for ttl; ErrLeaseHeld when another holds it.
	Acquire(ctx context.Context, holder string, now time.Time, ttl time.Duration) error
	Release(ctx context.Context, holder string) error
}

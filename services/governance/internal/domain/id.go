package domain

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"sharedworld.dev/pkg/problem"
)

// Id prefixes of CONTRACT §1; the store draws the 8 hex characters for
// stored aggregates, NewVoteID draws them for ballots.
const (
	ProposalIDPrefix = "prop"
	ElectionIDPrefix = "elec"
	VoteIDPrefix     = "vote"
)

// NewVoteID draws a vote id from a CSPRNG. A ballot's id only needs to be
// unique within its proposal, where the voter is already unique, so a
// collision is harmless.
func NewVoteID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return VoteIDPrefix + "_" + hex.EncodeToString(b[:])
}

// validID reports whether s is prefix_ and 8 lowercase hex characters.
func validID(prefix, s string) bool {
	if len(s) != len(prefix)+9 || s[:len(prefix)+1] != prefix+"_" {
		return false
	}
	for _, r := range s[len(prefix)+1:] {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// ParseProposalID checks an id's shape; a malformed id names no proposal (404).
func ParseProposalID(s string) (string, error) {
	if !validID(ProposalIDPrefix, s) {
		return "", ErrProposalNotFound(s)
	}
	return s, nil
}

// ParseElectionID checks an id's shape; a malformed id names no election (404).
func ParseElectionID(s string) (string, error) {
	if !validID(ElectionIDPrefix, s) {
		return "", ErrElectionNotFound(s)
	}
	return s, nil
}

// ErrProposalNotFound is the answer for an id that names no proposal.
func ErrProposalNotFound(id string) error {
	return problem.NotFound(fmt.Sprintf("No proposal has the id %q.", id),
		"Proposal ids look like prop_0a1b2c3d; list proposals with GET /api/world/governance/proposals.")
}

// ErrElectionNotFound is the answer for an id that names no election.
func ErrElectionNotFound(id string) error {
	return problem.NotFound(fmt.Sprintf("No election has the id %q.", id),
		"Election ids look like elec_0a1b2c3d; list elections with GET /api/world/elections.")
}

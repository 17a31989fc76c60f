package domain

import (
	"fmt"
	"strings"
	"time"

	"sharedworld.dev/pkg/problem"
)

// ProposalType fixes a proposal's timetable and rules.
type ProposalType string

// The proposal types of CONTRACT §7.
const (
	Standard       ProposalType = "standard"
	Major          ProposalType = "major"
	Constitutional ProposalType = "constitutional"
	Protected      ProposalType = "protected"
	Emergency      ProposalType = "emergency"
	Recall         ProposalType = "recall"
)

// ProposalTypes lists every type in the contract's order.
var ProposalTypes = []ProposalType{Standard, Major, Constitutional, Protected, Emergency, Recall}

// Rules are one row of the type table. Threshold and quorum are kept in
// whole percent so that the comparisons are exact integer arithmetic: a
// float 0.6 × 5 is not exactly 3, and a ballot on the line must count.
type Rules struct {
	Discussion time.Duration
	Voting     time.Duration
	// ThresholdPct: for/(for+against) must reach it.
	ThresholdPct int64
	// QuorumPct: all ballots / total_eligible must reach it.
	QuorumPct int64
	// SimpleMajority: for must exceed against (a tie fails), instead of
	// reaching the threshold.
	SimpleMajority bool
}

var rulesByType = map[ProposalType]Rules{
	Standard:       {72 * time.Hour, 48 * time.Hour, 50, 20, true},
	Major:          {120 * time.Hour, 72 * time.Hour, 60, 30, false},
	Constitutional: {168 * time.Hour, 96 * time.Hour, 75, 50, false},
	Protected:      {336 * time.Hour, 168 * time.Hour, 90, 50, false},
	Emergency:      {0, 4 * time.Hour, 60, 10, false},
	Recall:         {120 * time.Hour, 72 * time.Hour, 40, 30, false},
}

// Rules returns the type's row of the table.
func (t ProposalType) Rules() Rules { return rulesByType[t] }

// Threshold is the threshold as the fraction the contract shows.
func (r Rules) Threshold() float64 { return float64(r.ThresholdPct) / 100 }

// Quorum is the quorum as the fraction the contract shows.
func (r Rules) Quorum() float64 { return float64(r.QuorumPct) / 100 }

// ParseProposalType reads `type` or its alias `tier` (absent: standard).
// A `recall` is made through the recall route, which names the steward, so
// here it is refused with a hint pointing there.
func ParseProposalType(typ, tier *string) (ProposalType, error) {
	raw := typ
	if raw == nil {
		raw = tier
	} else if tier != nil && *tier != *typ {
		return "", problem.Invalid(fmt.Sprintf("type %q and tier %q disagree.", *typ, *tier), "tier is an alias of type: send one of them.")
	}
	if raw == nil {
		return Standard, nil
	}
	t, err := parseEnum("type", *raw, ProposalTypes)
	if err != nil {
		return "", err
	}
	if t == Recall {
		return "", problem.Invalid("A recall names the steward it recalls.",
			`Use POST /api/world/governance/recall {"role": "<office>", "reason": "..."} to propose a recall.`)
	}
	return t, nil
}

// ProposalStatus is where a proposal stands.
type ProposalStatus string

// The statuses of CONTRACT §7.
const (
	Discussion ProposalStatus = "discussion"
	Voting     ProposalStatus = "voting"
	Passed     ProposalStatus = "passed"
	Failed     ProposalStatus = "failed"
)

// ProposalStatuses lists every status in life-cycle order.
var ProposalStatuses = []ProposalStatus{Discussion, Voting, Passed, Failed}

// Choice is a ballot's choice on a proposal.
type Choice string

// The choices of CONTRACT §7.
const (
	For     Choice = "for"
	Against Choice = "against"
	Abstain Choice = "abstain"
)

// Choices lists every choice.
var Choices = []Choice{For, Against, Abstain}

// ParseChoice accepts exactly one of the three spellings.
func ParseChoice(s string) (Choice, error) { return parseEnum("vote", s, Choices) }

// Office is one of the five stewardships.
type Office string

// The offices of CONTRACT §7; embassy keeps the relationship with the
// identity provider.
const (
	Chief   Office = "chief"
	Land    Office = "land"
	Peace   Office = "peace"
	Archive Office = "archive"
	Embassy Office = "embassy"
)

// Offices lists every office in the contract's order.
var Offices = []Office{Chief, Land, Peace, Archive, Embassy}

// ParseOffice accepts exactly one office name.
func ParseOffice(s string) (Office, error) { return parseEnum("role", s, Offices) }

// ElectionStatus is where an election stands.
type ElectionStatus string

// The election statuses of CONTRACT §7.
const (
	Nominating ElectionStatus = "nominating"
	Balloting  ElectionStatus = "voting"
	Closed     ElectionStatus = "closed"
)

// ElectionStatuses lists every election status in order.
var ElectionStatuses = []ElectionStatus{Nominating, Balloting, Closed}

func parseEnum[T ~string](field, got string, allowed []T) (T, error) {
	for _, a := range allowed {
		if string(a) == got {
			return a, nil
		}
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	list := strings.Join(names, ", ")
	if got == "" {
		return "", problem.Invalidf(fmt.Sprintf("Send %q as one of: %s.", field, list), "Field %q is missing or empty.", field)
	}
	return "", problem.Invalidf(fmt.Sprintf("Send %q as one of: %s (lowercase).", field, list), "%q is not a valid %s.", got, field)
}

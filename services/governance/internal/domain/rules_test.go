package domain

import (
	"testing"
	"time"

	"sharedworld.dev/pkg/problem"
)

func TestTypeTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name               string
		typ                ProposalType
		discussion, voting time.Duration
		threshold, quorum  float64
	}{
		{"§7 standard 72/48/0.50/0.20", Standard, 72 * time.Hour, 48 * time.Hour, 0.50, 0.20},
		{"§7 major 120/72/0.60/0.30", Major, 120 * time.Hour, 72 * time.Hour, 0.60, 0.30},
		{"§7 constitutional 168/96/0.75/0.50", Constitutional, 168 * time.Hour, 96 * time.Hour, 0.75, 0.50},
		{"§7 protected 336/168/0.90/0.50", Protected, 336 * time.Hour, 168 * time.Hour, 0.90, 0.50},
		{"§7 emergency 0/4/0.60/0.10", Emergency, 0, 4 * time.Hour, 0.60, 0.10},
		{"§7 recall 120/72/0.40/0.30", Recall, 120 * time.Hour, 72 * time.Hour, 0.40, 0.30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.typ.Rules()
			if r.Discussion != tt.discussion || r.Voting != tt.voting || r.Threshold() != tt.threshold || r.Quorum() != tt.quorum {
				t.Fatalf("rules = %+v", r)
			}
		})
	}
}

func TestJudge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name              string
		typ               ProposalType
		tally             Tally
		eligible          int64
		quorum, threshold bool
	}{
		{"§7 standard: 2 of 10 ballots is exactly the 20% quorum", Standard, Tally{For: 2}, 10, true, true},
		{"§7 standard: 1 of 10 ballots is under quorum", Standard, Tally{For: 1}, 10, false, true},
		{"§7 standard: a tie fails the simple majority", Standard, Tally{For: 2, Against: 2}, 10, true, false},
		{"§7 standard: one more for than against passes", Standard, Tally{For: 3, Against: 2}, 10, true, true},
		{"§7 abstentions count toward quorum only", Standard, Tally{For: 1, Abstain: 1}, 10, true, true},
		{"§7 abstentions alone meet quorum but not the threshold", Standard, Tally{Abstain: 5}, 10, true, false},
		{"§7 no eligible citizens: quorum never met", Standard, Tally{For: 3}, 0, false, true},
		{"§7 major: 3/5 is exactly 0.60", Major, Tally{For: 3, Against: 2}, 10, true, true},
		{"§7 major: 5/9 is under 0.60", Major, Tally{For: 5, Against: 4}, 30, true, false},
		{"§7 major: a tie is under 0.60", Major, Tally{For: 3, Against: 3}, 20, true, false},
		{"§7 major: 8 of 27 ballots is under the 30% quorum", Major, Tally{For: 8}, 27, false, true},
		{"§7 major: 9 of 30 is exactly the 30% quorum", Major, Tally{For: 9}, 30, true, true},
		{"§7 constitutional: 3/4 is exactly 0.75", Constitutional, Tally{For: 3, Against: 1}, 8, true, true},
		{"§7 constitutional: 5/7 is under 0.75", Constitutional, Tally{For: 5, Against: 2}, 14, true, false},
		{"§7 constitutional: 4 of 9 ballots is under half", Constitutional, Tally{For: 4}, 9, false, true},
		{"§7 protected: 9/10 is exactly 0.90", Protected, Tally{For: 9, Against: 1}, 20, true, true},
		{"§7 protected: 8/9 is under 0.90", Protected, Tally{For: 8, Against: 1}, 18, true, false},
		{"§7 emergency: 1 of 10 is exactly the 10% quorum", Emergency, Tally{For: 1}, 10, true, true},
		{"§7 emergency: 1 of 11 is under quorum", Emergency, Tally{For: 1}, 11, false, true},
		{"§7 recall: 2/5 is exactly 0.40", Recall, Tally{For: 2, Against: 3}, 10, true, true},
		{"§7 recall: 1/3 is under 0.40", Recall, Tally{For: 1, Against: 2}, 10, true, false},
		{"§7 recall: a tie passes 0.40", Recall, Tally{For: 2, Against: 2}, 10, true, true},
		{"§7 no for or against: threshold not met", Major, Tally{}, 10, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, th := Judge(tt.typ.Rules(), tt.tally, tt.eligible)
			if q != tt.quorum || th != tt.threshold {
				t.Fatalf("Judge = quorum %v threshold %v, want %v %v", q, th, tt.quorum, tt.threshold)
			}
		})
	}
}

func TestParseProposalType(t *testing.T) {
	t.Parallel()
	s := func(v string) *string { return &v }
	tests := []struct {
		name      string
		typ, tier *string
		want      ProposalType
		bad       bool
	}{
		{"§7 absent type is standard", nil, nil, Standard, false},
		{"§7 type major", s("major"), nil, Major, false},
		{"§7 tier is an alias of type", nil, s("constitutional"), Constitutional, false},
		{"§7 type and tier agreeing", s("protected"), s("protected"), Protected, false},
		{"§7 type and tier disagreeing is 400", s("major"), s("standard"), "", true},
		{"§7 emergency", s("emergency"), nil, Emergency, false},
		{"§7 recall goes through the recall route", s("recall"), nil, "", true},
		{"§1 unknown type is 400", s("urgent"), nil, "", true},
		{"§1 empty type is 400", s(""), nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseProposalType(tt.typ, tt.tier)
			if tt.bad {
				if pe, ok := problem.As(err); !ok || pe.Kind != problem.KindInvalid || pe.Hint == "" {
					t.Fatalf("err = %v, want invalid_request with a hint", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("= %q, %v", got, err)
			}
		})
	}
}

func TestParseProposalLengths(t *testing.T) {
	t.Parallel()
	s := func(v string) *string { return &v }
	long := func(n int) *string {
		b := make([]rune, n)
		for i := range b {
			b[i] = 'é'
		}
		v := string(b)
		return &v
	}
	tests := []struct {
		name        string
		title, body *string
		kind        problem.Kind
		ok          bool
	}{
		{"§7 200 code points of title is allowed", long(200), s("b"), 0, true},
		{"§11 201 code points of title is validation_failed", long(201), s("b"), problem.KindValidation, false},
		{"§7 10000 code points of body is allowed", s("t"), long(10000), 0, true},
		{"§11 10001 code points of body is validation_failed", s("t"), long(10001), problem.KindValidation, false},
		{"§11 missing title is invalid_request", nil, s("b"), problem.KindInvalid, false},
		{"§11 empty body is invalid_request", s("t"), s(""), problem.KindInvalid, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseProposal(ProposeRequest{Title: tt.title, Body: tt.body})
			if tt.ok != (err == nil) {
				t.Fatalf("err = %v", err)
			}
			if !tt.ok {
				if pe, _ := problem.As(err); pe == nil || pe.Kind != tt.kind {
					t.Fatalf("err = %v, want kind %d", err, tt.kind)
				}
			}
		})
	}
}

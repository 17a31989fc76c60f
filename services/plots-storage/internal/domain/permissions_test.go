package domain

import (
	"fmt"
	"slices"
	"testing"

	"sharedworld.dev/pkg/problem"
)

const (
	owner    = "emb_000000000000000000000001"
	friend   = "emb_000000000000000000000002"
	stranger = "emb_000000000000000000000003"
	enemy    = "emb_000000000000000000000004"
)

func agents(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("emb_%024x", i+1)
	}
	return out
}

func TestNewPermissions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   PermissionsInput
		want Permissions
		kind problem.Kind
	}{
		{"§11 permissions: absent fields take their defaults", PermissionsInput{},
			Permissions{AllowedAgents: []string{}, BannedAgents: []string{}}, accepted},
		{"§4 permissions: all five fields are stored", PermissionsInput{
			PublicRead: boolp(true), PublicWrite: boolp(true), AllowedAgents: []string{friend},
			BannedAgents: []string{enemy}, GovernanceOverride: boolp(true)},
			Permissions{true, true, []string{friend}, []string{enemy}, true}, accepted},
		{"§4 permissions: explicit false stays false", PermissionsInput{PublicRead: boolp(false)},
			Permissions{AllowedAgents: []string{}, BannedAgents: []string{}}, accepted},
		{"§4 permissions: duplicates are kept once", PermissionsInput{AllowedAgents: []string{friend, friend, owner}},
			Permissions{AllowedAgents: []string{friend, owner}, BannedAgents: []string{}}, accepted},
		{"§4 permissions: 100 allowed agents", PermissionsInput{AllowedAgents: agents(100)},
			Permissions{AllowedAgents: agents(100), BannedAgents: []string{}}, accepted},
		{"§4 permissions: 100 distinct among duplicates", PermissionsInput{AllowedAgents: append(agents(100), agents(100)...)},
			Permissions{AllowedAgents: agents(100), BannedAgents: []string{}}, accepted},
		{"§11 length: 101 allowed agents is 422", PermissionsInput{AllowedAgents: agents(101)}, Permissions{}, problem.KindValidation},
		{"§11 length: 101 banned agents is 422", PermissionsInput{BannedAgents: agents(101)}, Permissions{}, problem.KindValidation},
		{"§1 invalid: an empty agent id is 400", PermissionsInput{AllowedAgents: []string{""}}, Permissions{}, problem.KindInvalid},
		{"§1 invalid: a truncated agent id is 400", PermissionsInput{BannedAgents: []string{"emb_0000"}}, Permissions{}, problem.KindInvalid},
		{"§1 invalid: upper-case hex is 400", PermissionsInput{AllowedAgents: []string{"emb_00000000000000000000000A"}}, Permissions{}, problem.KindInvalid},
		{"§1 invalid: the system owner is not an agent", PermissionsInput{AllowedAgents: []string{CommonsOwner}}, Permissions{}, problem.KindInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := NewPermissions(tc.in)
			checkKind(t, err, tc.kind)
			if err != nil {
				return
			}
			if got.PublicRead != tc.want.PublicRead || got.PublicWrite != tc.want.PublicWrite ||
				got.GovernanceOverride != tc.want.GovernanceOverride ||
				!slices.Equal(got.AllowedAgents, tc.want.AllowedAgents) ||
				!slices.Equal(got.BannedAgents, tc.want.BannedAgents) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			if got.AllowedAgents == nil || got.BannedAgents == nil {
				t.Fatal("lists must be empty, not nil, so they encode as []")
			}
		})
	}
}

package domain

import (
	"fmt"
	"regexp"
	"slices"

	"sharedworld.dev/pkg/problem"
)

// MaxListedAgents bounds allowed_agents and banned_agents (CONTRACT §4).
const MaxListedAgents = 100

// Permissions are the five honoured fields of a plot's permissions; nothing
// else an agent sends (a `path`, say) is stored.
type Permissions struct {
	PublicRead         bool
	PublicWrite        bool
	AllowedAgents      []string
	BannedAgents       []string
	GovernanceOverride bool
}

// PermissionsInput is a PUT body as decoded; absent fields take their defaults.
type PermissionsInput struct {
	PublicRead         *bool
	PublicWrite        *bool
	AllowedAgents      []string
	BannedAgents       []string
	GovernanceOverride *bool
}

// agentIDShape is any identity provider's id: a prefix, `_`, 24 lowercase hex.
// The prefix is the provider's choice, so it is not pinned here.
var agentIDShape = regexp.MustCompile(`^[A-Za-z0-9-]{1,32}_[0-9a-f]{24}$`)

// NewPermissions replaces all five fields from a PUT (CONTRACT §11): absent
// booleans are false and absent lists empty. Lists are deduplicated in order.
func NewPermissions(in PermissionsInput) (Permissions, error) {
	allowed, err := agentList("allowed_agents", in.AllowedAgents)
	if err != nil {
		return Permissions{}, err
	}
	banned, err := agentList("banned_agents", in.BannedAgents)
	if err != nil {
		return Permissions{}, err
	}
	return Permissions{
		PublicRead:         deref(in.PublicRead),
		PublicWrite:        deref(in.PublicWrite),
		AllowedAgents:      allowed,
		BannedAgents:       banned,
		GovernanceOverride: deref(in.GovernanceOverride),
	}, nil
}

func agentList(field string, ids []string) ([]string, error) {
	out := make([]string, 0, len(ids))
	for i, id := range ids {
		if !agentIDShape.MatchString(id) {
			return nil, problem.Invalid(
				fmt.Sprintf("%s[%d] is not an agent id", field, i),
				"agent ids look like emb_0a1b2c3d4e5f6a7b8c9de1f2")
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	if len(out) > MaxListedAgents {
		return nil, problem.Validation(
			fmt.Sprintf("%s holds %d agents, the limit is %d", field, len(out), MaxListedAgents),
			"list at most 100 distinct agents")
	}
	return out, nil
}

func deref(b *bool) bool { return b != nil && *b }

func (p Permissions) allows(agentID string) bool { return slices.Contains(p.AllowedAgents, agentID) }
func (p Permissions) bans(agentID string) bool   { return slices.Contains(p.BannedAgents, agentID) }

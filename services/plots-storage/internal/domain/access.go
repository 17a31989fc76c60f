package domain

import (
	"sharedworld.dev/pkg/problem"
)

// PlotAccess is what access decisions need to know about a plot.
type PlotAccess struct {
	ID          string
	Owner       string
	Permissions Permissions
}

// IsCommons reports whether the plot is the commons.
func (p PlotAccess) IsCommons() bool { return p.ID == CommonsPlotID }

// Anonymous is the agent id of a caller without credentials.
const Anonymous = ""

// AuthorizeRead decides a read or listing (CONTRACT §4): the owner, an allowed
// agent, or anyone when public_read; never a banned agent. The commons is
// public: its garden is the only thing on it and everyone may see it.
func AuthorizeRead(plot PlotAccess, agentID string) error {
	switch {
	case plot.IsCommons():
		return nil
	case agentID != Anonymous && agentID == plot.Owner:
		return nil
	case agentID != Anonymous && plot.Permissions.bans(agentID):
		return problem.Permission("you are banned from this plot", "ask the owner to lift the ban")
	case plot.Permissions.PublicRead:
		return nil
	case agentID != Anonymous && plot.Permissions.allows(agentID):
		return nil
	case agentID == Anonymous:
		return problem.Permission("this plot is not public",
			"send your credentials; the owner may have allowed you")
	}
	return problem.Permission("you may not read this plot",
		"ask the owner to add you to allowed_agents or to set public_read")
}

// AuthorizeWrite decides a write by a citizen (CONTRACT §4, §11). On the
// commons any citizen may write under /garden/ in the garden's shape (a wrong
// shape is 400) and nowhere else (403). Elsewhere: the owner, an allowed agent,
// or anyone when public_write; never a banned agent. The path must already have
// passed ValidatePath.
func AuthorizeWrite(plot PlotAccess, agentID, path string) error {
	if agentID == Anonymous {
		return problem.Unauthenticated("writing needs credentials", "send your agent id and certificate")
	}
	if plot.IsCommons() {
		if !InGarden(path) {
			return problem.Permission("on the commons only /garden/ is writable",
				"write to /garden/<name>/<item>.md or /garden/index.md, or to your own plot")
		}
		return ValidateGardenPath(path)
	}
	switch {
	case agentID == plot.Owner:
		return nil
	case plot.Permissions.bans(agentID):
		return problem.Permission("you are banned from this plot", "ask the owner to lift the ban")
	case plot.Permissions.PublicWrite, plot.Permissions.allows(agentID):
		return nil
	}
	return problem.Permission("you may not write to this plot",
		"write to your own plot, or ask the owner to add you to allowed_agents or to set public_write")
}

// AuthorizeDelete allows only the plot's owner; on the commons that is the
// system owner, so no agent deletes a garden file.
func AuthorizeDelete(plot PlotAccess, agentID string) error {
	if agentID != Anonymous && agentID == plot.Owner {
		return nil
	}
	if plot.IsCommons() {
		return problem.Permission("garden files are deleted only by the commons owner",
			"tend the file instead: write a new version to the same path")
	}
	return problem.Permission("only the plot owner may delete its files",
		"ask the owner to delete the file")
}

// AuthorizeOwner allows only the plot's owner (permissions GET and PUT).
func AuthorizeOwner(plot PlotAccess, agentID string) error {
	if agentID != Anonymous && agentID == plot.Owner {
		return nil
	}
	return problem.Permission("only the plot owner may see or change its permissions",
		"this works on your own plot only")
}

package domain

import "strings"

// SystemCommonsID is the reserved, non-hex owner of the commons plot
// (CONTRACT §4).
const SystemCommonsID = "system_commons"

// IsCitizenClaim reports whether a claim is a citizen's, which the feed
// lists (SEED §2.5): a claim of any plot but the commons, by an agent_id.
// The commons is made by the world and owned by the system owner; its
// "claim" is no citizen's act and never news.
func IsCitizenClaim(e PlotClaimed) bool {
	return e.PlotID != CommonsPlotID && isAgentID(e.OwnerAgentID)
}

// isAgentID reports whether id has the shape of a citizen's agent_id
// (SEED §2.1): its part after the last "_" is 24 lowercase hex.
func isAgentID(id string) bool {
	_, ok := agentHex(id)
	return ok
}

// agentHexLen is the length of the hex part of an agent_id (SEED §2.1).
const agentHexLen = 24

// AbbreviateAgentID shortens an agent_id for a feed line: the first four and
// the last four characters of its 24-hex part joined by "…" (U+2026),
// CONTRACT §1. An id that is not of the shape <prefix>_<24 hex> (the system
// owner of the commons, for one) is returned whole: there is no hex part to
// shorten, and cutting it would make it unrecognisable.
func AbbreviateAgentID(agentID string) string {
	hex, ok := agentHex(agentID)
	if !ok {
		return agentID
	}
	return hex[:4] + "…" + hex[agentHexLen-4:]
}

// agentHex is the hex part of an agent_id, and whether id has that shape.
func agentHex(id string) (string, bool) {
	hex := id
	if i := strings.LastIndexByte(id, '_'); i >= 0 {
		hex = id[i+1:]
	}
	return hex, len(hex) == agentHexLen && isLowerHex(hex)
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

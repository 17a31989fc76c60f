package domain

import "strings"

// SystemCommonsID is the reserved, non-hex owner of the commons plot
// (CONTRACT §4).
const SystemCommonsID = "system_commons"

// agentHexLen is the length of the hex part of an agent_id (SEED §2.1).
const agentHexLen = 24

// AbbreviateAgentID shortens an agent_id for a feed line: the first four and
// the last four characters of its 24-hex part joined by "…" (U+2026),
// CONTRACT §1. An id that is not of the shape <prefix>_<24 hex> (the system
// owner of the commons, for one) is returned whole: there is no hex part to
// shorten, and cutting it would make it unrecognisable.
func AbbreviateAgentID(agentID string) string {
	hex := agentID
	if i := strings.LastIndexByte(agentID, '_'); i >= 0 {
		hex = agentID[i+1:]
	}
	if len(hex) != agentHexLen || !isLowerHex(hex) {
		return agentID
	}
	return hex[:4] + "…" + hex[agentHexLen-4:]
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

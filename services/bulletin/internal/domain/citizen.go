package domain

import "time"

// Citizen is the projection of one citizen. Name and living-ness change
// independently, so each keeps the version of the event that last set it:
// a late citizen.registered (version 1) can neither rename a citizen nor
// bring a tombstoned one back.
type Citizen struct {
	AgentID       string
	CitizenNumber int64
	RegisteredAt  time.Time
	Name          string
	NameVersion   uint64
	Living        bool
	LivingVersion uint64
}

// Kind is KindCitizen.
func (c Citizen) Kind() RecordKind { return KindCitizen }

// Key is the agent_id.
func (c Citizen) Key() string { return c.AgentID }

// Revision is the highest version applied.
func (c Citizen) Revision() uint64 { return max(c.NameVersion, c.LivingVersion) }

// Counts reports whether the citizen counts in the population: known and
// living (CONTRACT §3 — no stubs, tombstoned citizens do not count).
func (c Citizen) Counts() bool { return c.AgentID != "" && c.Living }

// newCitizen starts a citizen first heard of through any event. Until an
// event says otherwise a citizen is living, at version 0, so that any real
// event overrides the assumption.
func newCitizen(agentID string) Citizen { return Citizen{AgentID: agentID, Living: true} }

// ApplyRegistered takes in citizen.registered.
func (c Citizen) ApplyRegistered(e CitizenRegistered) (Citizen, bool) {
	changed := fillTime(&c.RegisteredAt, e.RegisteredAt)
	changed = fillInt(&c.CitizenNumber, e.CitizenNumber) || changed
	if e.Version > c.NameVersion {
		c.Name, c.NameVersion, changed = e.Name, e.Version, true
	}
	if e.Version > c.LivingVersion {
		c.Living, c.LivingVersion, changed = true, e.Version, true
	}
	return c, changed
}

// ApplyUpdated takes in citizen.updated.
func (c Citizen) ApplyUpdated(e CitizenUpdated) (Citizen, bool) {
	if e.Version <= c.NameVersion {
		return c, false
	}
	c.Name, c.NameVersion = e.Name, e.Version
	return c, true
}

// ApplyTombstoned takes in citizen.tombstoned.
func (c Citizen) ApplyTombstoned(e CitizenTombstoned) (Citizen, bool) {
	if e.Version <= c.LivingVersion {
		return c, false
	}
	c.Living, c.LivingVersion = false, e.Version
	return c, true
}

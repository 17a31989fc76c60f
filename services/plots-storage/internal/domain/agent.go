package domain

// Agent is the citizen acting, as the use cases need it: the agent id that
// rules are decided on and the name events carry. The HTTP edge builds it
// from the citizens projection.
type Agent struct {
	ID   string
	Name string
}

// CommonsAgent is the system owner that holds the commons.
var CommonsAgent = Agent{ID: CommonsOwner, Name: CommonsDisplayName}

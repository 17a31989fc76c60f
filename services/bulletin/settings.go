package bulletin

import (
	"fmt"
	"time"

	"sharedworld.dev/pkg/config"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// Settings are the bulletin's own environment variables (the World
// resource's fields, as the operator sets them, and the live stream's
// limits). Empty world fields take the defaults of domain.WorldConfig.
type Settings struct {
	WorldName       string `env:"WORLD_NAME"`
	Founded         string `env:"WORLD_FOUNDED"` // YYYY-MM-DD; default: the first start
	NextMilestone   string `env:"WORLD_NEXT_MILESTONE"`
	Note            string `env:"WORLD_NOTE"`
	LogicFlag       string `env:"WORLD_LOGIC_FLAG"`
	Phase           string `env:"WORLD_PHASE"` // empty: by population
	ElectionTrigger int    `env:"WORLD_ELECTION_TRIGGER" envDefault:"10"`

	MaxSubscribers   int `env:"WORLD_BULLETIN_MAX_SUBSCRIBERS" envDefault:"1000"`
	SubscriberBuffer int `env:"WORLD_BULLETIN_SUBSCRIBER_BUFFER" envDefault:"256"`
	HeartbeatSeconds int `env:"WORLD_BULLETIN_HEARTBEAT_SECONDS" envDefault:"15"`

	// Role is all (the local runner: both roles, no election), aggregator
	// or reader (the chart's two Deployments).
	Role string `env:"WORLD_BULLETIN_ROLE" envDefault:"all"`
	// Election is how aggregator replicas elect the one that leads: a
	// lease document in the database, or a Kubernetes Lease named
	// LeaseName in LeaseNamespace (the pod's own, from the downward API).
	Election       string `env:"WORLD_BULLETIN_ELECTION" envDefault:"database"`
	LeaseName      string `env:"WORLD_BULLETIN_LEASE_NAME" envDefault:"bulletin-aggregator"`
	LeaseNamespace string `env:"WORLD_BULLETIN_LEASE_NAMESPACE"`
	// PodName names this replica as a lease holder (default: host name
	// and process id).
	PodName string `env:"WORLD_POD_NAME"`
}

// The ways aggregator replicas elect their leader.
const (
	ElectionDatabase   = "database"
	ElectionKubernetes = "kubernetes"
)

// Validate checks the settings at start.
func (s Settings) Validate() error {
	_, err := s.Options()
	return err
}

// Options turns the settings into the service's options.
func (s Settings) Options() (Options, error) {
	var p config.Problems
	world := domain.WorldConfig{Name: s.WorldName, NextMilestone: s.NextMilestone, Note: s.Note, LogicFlag: s.LogicFlag,
		ElectionTrigger: s.ElectionTrigger}
	if s.Founded != "" {
		t, err := time.Parse(time.DateOnly, s.Founded)
		p.Addf(err != nil, "WORLD_FOUNDED must be a date YYYY-MM-DD, got %q", s.Founded)
		world.Founded = t
	}
	if s.Phase != "" {
		ph, err := domain.ParsePhase(s.Phase)
		p.Addf(err != nil, "WORLD_PHASE must be Founding, Constitutional Convention or Self-Governing, got %q", s.Phase)
		world.Phase = ph
	}
	p.Addf(s.ElectionTrigger < 1, "WORLD_ELECTION_TRIGGER must be at least 1, got %d", s.ElectionTrigger)
	p.Addf(s.MaxSubscribers < 1, "WORLD_BULLETIN_MAX_SUBSCRIBERS must be at least 1, got %d", s.MaxSubscribers)
	p.Addf(s.SubscriberBuffer < 1, "WORLD_BULLETIN_SUBSCRIBER_BUFFER must be at least 1, got %d", s.SubscriberBuffer)
	p.Addf(s.HeartbeatSeconds < 1, "WORLD_BULLETIN_HEARTBEAT_SECONDS must be at least 1, got %d", s.HeartbeatSeconds)
	role := Role(s.Role)
	p.Addf(role != RoleAll && role != RoleAggregator && role != RoleReader, "WORLD_BULLETIN_ROLE must be all, aggregator or reader, got %q", s.Role)
	p.Addf(s.Election != ElectionDatabase && s.Election != ElectionKubernetes, "WORLD_BULLETIN_ELECTION must be database or kubernetes, got %q", s.Election)
	p.Addf(s.Election == ElectionKubernetes && s.LeaseNamespace == "", "WORLD_BULLETIN_LEASE_NAMESPACE must be set for WORLD_BULLETIN_ELECTION=kubernetes")
	if err := p.Err(); err != nil {
		return Options{}, fmt.Errorf("bulletin settings: %w", err)
	}
	return Options{World: world, MaxSubscribers: s.MaxSubscribers, SubscriberBuffer: s.SubscriberBuffer,
		Heartbeat: time.Duration(s.HeartbeatSeconds) * time.Second, Role: role, Holder: s.PodName}, nil
}

// Package config loads a service's settings from environment variables and
// validates them at start, so a bad deployment fails fast with a clear message.
package config

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/ratelimit"
)

// Load parses environment variables into a new T using `env` struct tags
// (github.com/caarlos0/env) and then runs T's Validate method when it has one.
func Load[T any]() (T, error) {
	var cfg T
	if err := env.Parse(&cfg); err != nil {
		return cfg, fmt.Errorf("configuration: %w", explain[T](err))
	}
	if v, ok := any(&cfg).(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return cfg, fmt.Errorf("configuration: %w", err)
		}
	}
	return cfg, nil
}

// LoadFrom is Load with an explicit environment, for tests and the local runner.
func LoadFrom[T any](environ map[string]string) (T, error) {
	var cfg T
	if err := env.ParseWithOptions(&cfg, env.Options{Environment: environ}); err != nil {
		return cfg, fmt.Errorf("configuration: %w", explain[T](err))
	}
	if v, ok := any(&cfg).(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return cfg, fmt.Errorf("configuration: %w", err)
		}
	}
	return cfg, nil
}

// explain names the environment variable behind each parse error (the
// library reports the Go field name, which an operator never sees).
func explain[T any](err error) error {
	var agg env.AggregateError
	if !errors.As(err, &agg) {
		return err
	}
	t := reflect.TypeFor[T]()
	var p Problems
	for _, e := range agg.Errors {
		var pe env.ParseError
		if errors.As(e, &pe) {
			if f, ok := t.FieldByName(pe.Name); ok {
				name, _, _ := strings.Cut(f.Tag.Get("env"), ",")
				p = append(p, fmt.Sprintf("%s must be a valid %s", name, pe.Type))
				continue
			}
		}
		p = append(p, e.Error())
	}
	return p.Err()
}

// Problems collects validation messages and joins them into one error.
type Problems []string

// Addf records a problem when cond is true.
func (p *Problems) Addf(cond bool, format string, args ...any) {
	if cond {
		*p = append(*p, fmt.Sprintf(format, args...))
	}
}

// Err returns nil when there are no problems.
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	return errors.New(strings.Join(p, "; "))
}

// Switch is an on/off setting. Only "on" and "off" parse, so that a
// misspelt value stops the start instead of silently meaning one of them;
// the zero value is on.
type Switch string

// UnmarshalText accepts on and off.
func (s *Switch) UnmarshalText(b []byte) error {
	if v := string(b); v == "on" || v == "off" {
		*s = Switch(v)
		return nil
	}
	return fmt.Errorf("must be on or off, got %q", b)
}

// Off reports whether the setting is off.
func (s Switch) Off() bool { return s == "off" }

// Common holds the settings every service binary shares.
type Common struct {
	Addr      string `env:"WORLD_ADDR" envDefault:":8080"`
	AdminAddr string `env:"WORLD_ADMIN_ADDR" envDefault:":9090"`
	LogLevel  string `env:"WORLD_LOG_LEVEL" envDefault:"info"`
	// AccessLogSample logs one in n successful GET/HEAD requests; writes and
	// every 4xx/5xx are always logged (1 logs every request).
	AccessLogSample int `env:"WORLD_ACCESS_LOG_SAMPLE" envDefault:"10"`
	// RequestDeadline bounds each request's database operations and calls
	// to other services: a hung database answers 503 with Retry-After
	// after this long (zero: the kit's default, 5 s).
	RequestDeadline time.Duration `env:"WORLD_REQUEST_DEADLINE" envDefault:"5s"`
	// WritesInFlight bounds the write requests a process handles at once,
	// and WriteWait how long a write may wait for one of them from its
	// arrival; past that it is answered 503 with Retry-After at once
	// (httpx.Admission). Zero WritesInFlight admits every write.
	WritesInFlight int           `env:"WORLD_WRITES_IN_FLIGHT" envDefault:"32"`
	WriteWait      time.Duration `env:"WORLD_WRITE_WAIT" envDefault:"250ms"`
	// DrainDelay is how long a replica told to stop (SIGTERM) stays up not
	// ready, still answering, before it stops taking connections: the time
	// its endpoints need to leave every load balancer (platform.Host.Drain).
	// Zero, the default, stops at once, as the local runner and tests want.
	DrainDelay time.Duration `env:"WORLD_DRAIN_DELAY" envDefault:"0s"`
	// FrontDoor "off" serves the bulletin's document readers with the full
	// server instead of the front door that reads their connections first
	// (httpx.Serve); empty or "on" keeps it. Only a port with document
	// routes has one.
	FrontDoor    Switch   `env:"WORLD_FRONT_DOOR" envDefault:"on"`
	MongoURI     string   `env:"WORLD_MONGO_URI"`
	MongoDB      string   `env:"WORLD_MONGO_DATABASE"`
	KafkaBrokers []string `env:"WORLD_KAFKA_BROKERS" envSeparator:","`
	// AmbassadorToken authorises the ambassador's admin routes.
	AmbassadorToken string `env:"WORLD_AMBASSADOR_TOKEN"`
	// IdentityURL is where other services ask identity about citizens they have not seen yet.
	IdentityURL string `env:"WORLD_IDENTITY_URL" envDefault:"http://identity:8080"`
	// Provider settings (CONTRACT §2).
	ProviderKeysURL        string            `env:"WORLD_IDP_KEYS_URL"`
	ProviderRevocationsURL string            `env:"WORLD_IDP_REVOCATIONS_URL"`
	ProviderVerifyURL      string            `env:"WORLD_IDP_VERIFY_URL"`
	ProviderKeys           map[string]string `env:"WORLD_IDP_KEYS" envSeparator:"," envKeyValSeparator:"="`
	AgentIDPrefix          string            `env:"WORLD_AGENT_ID_PREFIX" envDefault:"emb"`
	RemoteVerify           bool              `env:"WORLD_IDP_REMOTE_VERIFY" envDefault:"false"`
	RevocationRefreshSec   int               `env:"WORLD_IDP_REVOCATION_REFRESH_SECONDS" envDefault:"30"`
	RequireSignatures      bool              `env:"WORLD_REQUIRE_REQUEST_SIGNATURES" envDefault:"false"`
	// DataDir is where a host keeps local state (the local runner's data
	// directory, where services keep generated secrets); empty in a deployment.
	DataDir string `env:"WORLD_DATA_DIR"`
	// RateLimits overrides the kit's rate limits, name=limit/window
	// (writes=1000/1m,register_source=500/1h); see pkg/ratelimit.Defaults.
	RateLimits map[string]string `env:"WORLD_RATE_LIMITS" envSeparator:"," envKeyValSeparator:"="`
	// ClientIPHeader names the header a trusted proxy sets to the client's
	// address (X-Forwarded-For behind the Ingress); rate limits per source
	// read it. Empty: the connection's address.
	ClientIPHeader string `env:"WORLD_CLIENT_IP_HEADER"`
	// LoopbackSourcesUnlimited exempts clients on this machine (a loopback
	// connection address, no proxy header) from the per-source rules: the
	// local runner sets it, for a person simulating many agents on their
	// own machine. No deployment sets it (no environment variable).
	LoopbackSourcesUnlimited bool
	// DevIDP turns on the development identity provider (identity serves it; off in production).
	DevIDP bool `env:"WORLD_DEV_IDP" envDefault:"false"`
	// DevClock makes the binary follow a development clock (never in
	// production): it starts DevClockOffset ahead of the wall clock and the
	// admin port's PUT /devclock moves it forward, so that a local cluster
	// moves every replica's time at once as the runner moves its one clock.
	DevClock       bool          `env:"WORLD_DEV_CLOCK" envDefault:"false"`
	DevClockOffset time.Duration `env:"WORLD_DEV_CLOCK_OFFSET"`
}

// Validate checks the settings a service binary cannot run without.
func (c Common) Validate() error {
	var p Problems
	p.Addf(c.MongoURI == "", "WORLD_MONGO_URI is required (for example mongodb://mongo:27017)")
	p.Addf(len(c.KafkaBrokers) == 0, "WORLD_KAFKA_BROKERS is required (comma-separated host:port list)")
	p.Addf(c.AmbassadorToken != "" && len(c.AmbassadorToken) < 16, "WORLD_AMBASSADOR_TOKEN must be at least 16 characters")
	p.Addf(c.RequestDeadline < 0 || (c.RequestDeadline > 0 && c.RequestDeadline < 100*time.Millisecond) || c.RequestDeadline > 5*time.Minute,
		"WORLD_REQUEST_DEADLINE must be between 100ms and 5m (a Go duration such as 5s), got %v", c.RequestDeadline)
	p.Addf(c.DevClockOffset < 0 || c.DevClockOffset > clock.MaxDevOffset || (c.DevClockOffset != 0 && !c.DevClock),
		"WORLD_DEV_CLOCK_OFFSET must be a Go duration between 0 and 10 years, and needs WORLD_DEV_CLOCK=true, got %v", c.DevClockOffset)
	p.Addf(c.DrainDelay < 0 || c.DrainDelay > 5*time.Minute,
		"WORLD_DRAIN_DELAY must be between 0s and 5m (a Go duration such as 10s), got %v", c.DrainDelay)
	p.Addf(c.WritesInFlight < 0 || c.WriteWait < 0 || c.WriteWait > 5*time.Minute,
		"WORLD_WRITES_IN_FLIGHT must be 0 or more and WORLD_WRITE_WAIT between 0s and 5m, got %d and %v", c.WritesInFlight, c.WriteWait)
	p.Addf(c.AccessLogSample < 1, "WORLD_ACCESS_LOG_SAMPLE must be 1 or more (1 logs every request), got %d", c.AccessLogSample)
	p.Addf(c.RevocationRefreshSec < 1 || c.RevocationRefreshSec > 60, "WORLD_IDP_REVOCATION_REFRESH_SECONDS must be between 1 and 60, got %d", c.RevocationRefreshSec)
	p.Addf(len(c.ProviderKeys) == 0 && c.ProviderKeysURL == "" && !c.RemoteVerify && !c.DevIDP, "set WORLD_IDP_KEYS (kid=base64key,...) or WORLD_IDP_KEYS_URL, or enable WORLD_IDP_REMOTE_VERIFY or WORLD_DEV_IDP")
	if _, err := ratelimit.Parse(c.RateLimits); err != nil {
		p.Addf(true, "WORLD_RATE_LIMITS: %v", err)
	}
	p.Addf(c.RemoteVerify && c.ProviderVerifyURL == "", "WORLD_IDP_VERIFY_URL is required when WORLD_IDP_REMOTE_VERIFY is on")
	return p.Err()
}

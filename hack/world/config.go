// Package world is the local all-in-one runner (CONTRACT §10): embedded
// FerretDB and Kafka, every service mounted on one port, the development
// identity provider, and an optional development clock.
package world

import (
	"crypto/rand"
	"encoding/hex"
	"time"

	"sharedworld.dev/pkg/config"
)

// Config is the runner's environment.
type Config struct {
	Addr            string   `env:"WORLD_ADDR" envDefault:"127.0.0.1:8080"`
	DataDir         string   `env:"WORLD_DATA_DIR" envDefault:".data"`
	AmbassadorToken string   `env:"WORLD_AMBASSADOR_TOKEN"`
	DevClock        bool     `env:"WORLD_DEV_CLOCK" envDefault:"false"`
	MongoURI        string   `env:"WORLD_MONGO_URI"`
	KafkaBrokers    []string `env:"WORLD_KAFKA_BROKERS" envSeparator:","`
	LogLevel        string   `env:"WORLD_LOG_LEVEL" envDefault:"info"`
	AccessLogSample int      `env:"WORLD_ACCESS_LOG_SAMPLE" envDefault:"10"`
	// RequestDeadline bounds each request's database operations (see
	// config.Common): a hung database answers 503 after this long.
	RequestDeadline time.Duration `env:"WORLD_REQUEST_DEADLINE" envDefault:"5s"`
	// WritesInFlight and WriteWait bound the writes handled at once and a
	// write's wait for a turn (see config.Common): past them a write is
	// refused at once with 503 and Retry-After. The runner's one door
	// admits every service's writes: 16 keep two cores busy, and past
	// saturation 32 in flight contended on the same documents and
	// connections so that a write cost a third more CPU and the world
	// acknowledged 800 writes a second instead of 1,150-1,330
	// (docs/measurements.md).
	WritesInFlight int           `env:"WORLD_WRITES_IN_FLIGHT" envDefault:"16"`
	WriteWait      time.Duration `env:"WORLD_WRITE_WAIT" envDefault:"250ms"`
	AgentIDPrefix  string        `env:"WORLD_AGENT_ID_PREFIX" envDefault:"emb"`
	// FrontDoor "off" turns the bulletin's front door off (see config.Common).
	FrontDoor config.Switch `env:"WORLD_FRONT_DOOR" envDefault:"on"`
	// RequireSignatures makes X-Agent-Signature mandatory on authenticated requests.
	RequireSignatures bool `env:"WORLD_REQUIRE_REQUEST_SIGNATURES" envDefault:"false"`
	// RateLimits overrides the kit's rate limits (WORLD_RATE_LIMITS,
	// name=limit/window,...): load and crash scripts raise them.
	RateLimits map[string]string `env:"WORLD_RATE_LIMITS" envSeparator:"," envKeyValSeparator:"="`
	// ClientIPHeader names the header a proxy in front of the runner puts
	// the client's address in (WORLD_CLIENT_IP_HEADER): the per-source
	// rate limits count that address.
	ClientIPHeader string `env:"WORLD_CLIENT_IP_HEADER"`
	// PprofAddr, when set, serves Go's net/http/pprof on a listener of
	// its own (WORLD_PPROF_ADDR), never the API port: to profile a local
	// world.
	PprofAddr string `env:"WORLD_PPROF_ADDR"`
	// TokenGenerated is set when the runner made the ambassador token up.
	TokenGenerated bool `env:"-"`
}

// Defaults fills what the environment left open.
func (c *Config) Defaults() {
	if c.AmbassadorToken == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		c.AmbassadorToken = hex.EncodeToString(b[:])
		c.TokenGenerated = true
	}
}

package config_test

import (
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/config"
)

func TestCommonValidation(t *testing.T) {
	good := map[string]string{"WORLD_MONGO_URI": "mongodb://m:27017", "WORLD_KAFKA_BROKERS": "k1:9092,k2:9092", "WORLD_IDP_KEYS": "k1=AAAA"}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for kk, vv := range good {
			m[kk] = vv
		}
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	cfg, err := config.LoadFrom[config.Common](good)
	if err != nil {
		t.Fatalf("a complete configuration must load: %v", err)
	}
	if len(cfg.KafkaBrokers) != 2 || cfg.ProviderKeys["k1"] != "AAAA" || cfg.Addr != ":8080" || cfg.RevocationRefreshSec != 30 || cfg.RequestDeadline != 5*time.Second {
		t.Fatalf("parsed wrongly: %+v", cfg)
	}
	cases := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"mongo required", with("WORLD_MONGO_URI", ""), "WORLD_MONGO_URI is required"},
		{"brokers required", with("WORLD_KAFKA_BROKERS", ""), "WORLD_KAFKA_BROKERS is required"},
		{"a provider is required", with("WORLD_IDP_KEYS", ""), "WORLD_IDP_KEYS"},
		{"revocation refresh at most 60 s", with("WORLD_IDP_REVOCATION_REFRESH_SECONDS", "61"), "between 1 and 60"},
		{"short ambassador token", with("WORLD_AMBASSADOR_TOKEN", "short"), "at least 16"},
		{"remote verify needs a URL", with("WORLD_IDP_REMOTE_VERIFY", "true"), "WORLD_IDP_VERIFY_URL"},
		{"not a number", with("WORLD_IDP_REVOCATION_REFRESH_SECONDS", "often"), "WORLD_IDP_REVOCATION_REFRESH_SECONDS"},
		{"unknown rate limit", with("WORLD_RATE_LIMITS", "speed=1/1m"), "WORLD_RATE_LIMITS: unknown rate limit"},
		{"rate limit without a window", with("WORLD_RATE_LIMITS", "writes=100"), "WORLD_RATE_LIMITS: rate limit writes"},
		{"request deadline too short", with("WORLD_REQUEST_DEADLINE", "10ms"), "WORLD_REQUEST_DEADLINE must be between"},
		{"request deadline not a duration", with("WORLD_REQUEST_DEADLINE", "5"), "WORLD_REQUEST_DEADLINE"},
		{"drain delay not a duration", with("WORLD_DRAIN_DELAY", "15"), "WORLD_DRAIN_DELAY must be a valid time.Duration"},
		{"drain delay negative", with("WORLD_DRAIN_DELAY", "-1s"), "WORLD_DRAIN_DELAY must be between"},
		{"drain delay too long", with("WORLD_DRAIN_DELAY", "10m"), "WORLD_DRAIN_DELAY must be between"},
		{"front door neither on nor off", with("WORLD_FRONT_DOOR", "false"), "WORLD_FRONT_DOOR"},
	}
	for _, c := range cases {
		_, err := config.LoadFrom[config.Common](c.env)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want an error mentioning %q, got %v", c.name, c.want, err)
		}
	}
	if cfg.DrainDelay != 0 {
		t.Fatalf("WORLD_DRAIN_DELAY defaults to none, so the runner and tests stop at once: %v", cfg.DrainDelay)
	}
	if d, err := config.LoadFrom[config.Common](with("WORLD_DRAIN_DELAY", "15s")); err != nil || d.DrainDelay != 15*time.Second {
		t.Fatalf("WORLD_DRAIN_DELAY=15s: %v %v", d.DrainDelay, err)
	}
	raised, err := config.LoadFrom[config.Common](with("WORLD_RATE_LIMITS", "writes=5000/1m,register_source=1000/1h"))
	if err != nil || raised.RateLimits["writes"] != "5000/1m" || raised.RateLimits["register_source"] != "1000/1h" {
		t.Fatalf("WORLD_RATE_LIMITS raises limits: %v %v", raised.RateLimits, err)
	}
	if cfg.FrontDoor.Off() {
		t.Fatal("WORLD_FRONT_DOOR defaults to on")
	}
	if off, err := config.LoadFrom[config.Common](with("WORLD_FRONT_DOOR", "off")); err != nil || !off.FrontDoor.Off() {
		t.Fatalf("WORLD_FRONT_DOOR=off: %v %v", off.FrontDoor, err)
	}
	dev := with("WORLD_IDP_KEYS", "")
	dev["WORLD_DEV_IDP"] = "true"
	if _, err := config.LoadFrom[config.Common](dev); err != nil {
		t.Fatalf("the development provider is a provider: %v", err)
	}
}

// Command cluster runs the world as the Helm chart configures it, on one
// machine (`make cluster`): every rendered Deployment's replicas as
// processes of the service binaries, the Ingress rules on one front port,
// the CronJob on its schedule, a database and a broker in processes of
// their own. It takes the local runner's variables (WORLD_ADDR,
// WORLD_DATA_DIR, WORLD_AMBASSADOR_TOKEN, WORLD_DEV_CLOCK,
// WORLD_RATE_LIMITS) and REPLICAS, and logs `world ready on <url>` like
// `make run`.
//
//	cluster                         start the world and serve until SIGINT or SIGTERM
//	cluster ctl state               the Deployments' replicas and their readiness
//	cluster ctl roll <deployment>   roll a Deployment (as kubectl rollout restart)
//	cluster ctl kill <deployment> <i>     crash replica i (SIGKILL); it is started again
//	cluster ctl restart <deployment> <i>  delete replica i (SIGTERM) and start a new one
//	cluster ctl run <cronjob>       run a CronJob now
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"sharedworld.dev/hack/cluster"
	"sharedworld.dev/pkg/config"
	"sharedworld.dev/pkg/logging"
)

// Config is the cluster's environment.
type Config struct {
	Addr            string `env:"WORLD_ADDR" envDefault:"127.0.0.1:8080"`
	ControlAddr     string `env:"WORLD_CLUSTER_CONTROL_ADDR" envDefault:"127.0.0.1:0"`
	DataDir         string `env:"WORLD_DATA_DIR" envDefault:".data-cluster"`
	AmbassadorToken string `env:"WORLD_AMBASSADOR_TOKEN"`
	DevClock        bool   `env:"WORLD_DEV_CLOCK" envDefault:"false"`
	RateLimits      string `env:"WORLD_RATE_LIMITS"`
	Replicas        int    `env:"REPLICAS" envDefault:"0"`
	// Values are more values files, comma-separated (CLUSTER_VALUES).
	Values   []string `env:"CLUSTER_VALUES" envSeparator:","`
	LogLevel string   `env:"WORLD_LOG_LEVEL" envDefault:"info"`
	// ReplicaLog is where the replicas' own logs go: a file, or - for
	// standard error (CLUSTER_LOG; default <data dir>/cluster/replicas.log).
	ReplicaLog string `env:"CLUSTER_LOG"`
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "ctl" {
		os.Exit(ctl(os.Args[2:]))
	}
	cfg, err := config.Load[Config]()
	log := logging.New(os.Stdout, "cluster", cfg.LogLevel)
	if err != nil {
		log.Error("invalid configuration", slog.String("error", err.Error()))
		os.Exit(2)
	}
	if cfg.AmbassadorToken == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		cfg.AmbassadorToken = hex.EncodeToString(b[:])
		log.Info("generated ambassador token (set WORLD_AMBASSADOR_TOKEN to choose one)", slog.String("token", cfg.AmbassadorToken))
	}
	os.Exit(run(cfg, log))
}

func run(cfg Config, log *slog.Logger) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root, err := os.Getwd()
	if err != nil {
		log.Error("working directory", slog.String("error", err.Error()))
		return 1
	}
	began := time.Now()
	bin := filepath.Join(root, "bin", "cluster")
	if err := cluster.Build(ctx, bin); err != nil {
		log.Error("build", slog.String("error", err.Error()))
		return 1
	}
	if err := os.MkdirAll(filepath.Join(cfg.DataDir, "cluster"), 0o700); err != nil {
		log.Error("data directory", slog.String("error", err.Error()))
		return 1
	}
	var replicaLog io.Writer = os.Stderr
	if cfg.ReplicaLog != "-" {
		path := cfg.ReplicaLog
		if path == "" {
			path = filepath.Join(cfg.DataDir, "cluster", "replicas.log")
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			log.Error("replica log", slog.String("error", err.Error()))
			return 1
		}
		defer f.Close()
		replicaLog = f
		log.Info("replica logs", slog.String("file", path))
	}
	built := time.Since(began)
	c, err := cluster.Start(ctx, cluster.Options{Root: root, BinDir: bin, DataDir: cfg.DataDir, Addr: cfg.Addr, ControlAddr: cfg.ControlAddr,
		AmbassadorToken: cfg.AmbassadorToken, DevClock: cfg.DevClock, RateLimits: cfg.RateLimits, Replicas: cfg.Replicas,
		Values: cfg.Values, Log: replicaLog})
	if err != nil {
		log.Error("the cluster did not start", slog.String("error", err.Error()))
		return 1
	}
	_ = os.WriteFile(controlFile(cfg.DataDir), []byte(c.ControlURL+"\n"), 0o600)
	for _, d := range c.State().Deployments {
		log.Info("deployment ready", slog.String("name", d.Name), slog.Int("replicas", len(d.Replicas)))
	}
	log.Info("world ready on "+c.URL, slog.String("control", c.ControlURL),
		slog.Duration("build", built), slog.Duration("start", time.Since(began)-built))
	<-ctx.Done()
	log.Info("stopping")
	c.Stop()
	return 0
}

func controlFile(dataDir string) string { return filepath.Join(dataDir, "cluster", "control-url") }

// ctl sends one command to a running cluster's control port (found in
// WORLD_DATA_DIR).
func ctl(args []string) int {
	dataDir := os.Getenv("WORLD_DATA_DIR")
	if dataDir == "" {
		dataDir = ".data-cluster"
	}
	raw, err := os.ReadFile(controlFile(dataDir))
	if err != nil {
		fmt.Fprintln(os.Stderr, "no running cluster found:", err)
		return 4
	}
	base := strings.TrimSpace(string(raw))
	method, path := "POST", ""
	switch {
	case len(args) == 1 && args[0] == "state":
		method, path = "GET", "/cluster"
	case len(args) == 2 && args[0] == "roll":
		path = "/cluster/deployments/" + args[1] + "/roll"
	case len(args) == 3 && (args[0] == "kill" || args[0] == "restart"):
		path = "/cluster/deployments/" + args[1] + "/replicas/" + args[2] + "/" + args[0]
	case len(args) == 2 && args[0] == "run":
		path = "/cluster/cronjobs/" + args[1] + "/run"
	default:
		fmt.Fprintln(os.Stderr, "usage: cluster ctl state | roll <deployment> | kill|restart <deployment> <i> | run <cronjob>")
		return 2
	}
	req, _ := http.NewRequest(method, base+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 4
	}
	defer resp.Body.Close()
	_, _ = io.Copy(os.Stdout, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return 3
	}
	return 0
}

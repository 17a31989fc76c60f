package cluster

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"sharedworld.dev/hack/proc"
)

// Options place and configure a cluster.
type Options struct {
	Root    string // the repository: charts/shared-world and deploy/values-local.yaml
	BinDir  string // the service binaries, embedded-db and embedded-broker (see Build)
	DataDir string // the database's and broker's files, the ballot key, the clock
	// Addr is the front port (the Ingress); ControlAddr the harness's own
	// (kill, restart, roll); empty: a free loopback port.
	Addr, ControlAddr string
	AmbassadorToken   string
	DevClock          bool
	// RateLimits is WORLD_RATE_LIMITS for every replica (name=limit/window,...).
	RateLimits string
	// Replicas overrides every Deployment's replica count (0: the chart's).
	Replicas int
	// Values are more values files after deploy/values-local.yaml.
	Values []string
	Log    io.Writer
}

// Cluster is a running chart's world.
type Cluster struct {
	URL        string
	ControlURL string
	Manifests  *Manifests
	DB, Broker *proc.Proc

	opts        Options
	deployments []*deployment
	crons       []*cronJob
	hosts       serviceHosts
	servers     []*http.Server
	clock       *devClock
	// life is the cluster's lifetime: its replicas and CronJobs.
	life   context.Context
	cancel context.CancelFunc
}

// deployment is one rendered Deployment and its replicas.
type deployment struct {
	spec      appsv1.Deployment
	container Container
	grace     time.Duration
	mu        sync.Mutex
	replicas  []*Replica
	serial    int
}

func (d *deployment) snapshot() []*Replica {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]*Replica(nil), d.replicas...)
}

// Release and Namespace the chart is rendered as.
const (
	Release   = "world"
	Namespace = "default"
)

// Start brings the chart's world up: database and broker, the rendered
// Deployments' replicas (those other Deployments call first), the Service
// and Ingress routing, the CronJobs. It returns once every replica is
// ready; a replica that exits or never becomes ready fails the start with
// its last log lines.
func Start(ctx context.Context, o Options) (c *Cluster, err error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	state := filepath.Join(o.DataDir, "cluster")
	if err := os.MkdirAll(state, 0o700); err != nil {
		return nil, err
	}
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c = &Cluster{opts: o, hosts: serviceHosts{}, life: life, cancel: cancel}
	started := c
	defer func() {
		if err != nil {
			started.Stop()
		}
	}()
	if err := c.startBackends(ctx, state); err != nil {
		return nil, err
	}
	ballotKey, err := keptSecret(filepath.Join(state, "ballot-key"))
	if err != nil {
		return nil, err
	}
	c.Manifests, err = Render(RenderOptions{
		Chart: filepath.Join(o.Root, "charts", "shared-world"), Release: Release, Namespace: Namespace,
		Values: append([]string{filepath.Join(o.Root, "deploy", "values-local.yaml")}, o.Values...),
		Overrides: map[string]any{
			"mongodb": map[string]any{"uri": c.DB.Line},
			"kafka":   map[string]any{"brokers": c.Broker.Line},
			"secrets": map[string]any{"ambassadorToken": o.AmbassadorToken, "ballotKey": ballotKey},
		},
	})
	if err != nil {
		return nil, err
	}
	if o.DevClock {
		if c.clock, err = newDevClock(filepath.Join(state, "devclock"), o.AmbassadorToken, c); err != nil {
			return nil, err
		}
	}
	if err := c.serveServices(); err != nil {
		return nil, err
	}
	for _, d := range c.Manifests.Deployments {
		ct, err := c.Manifests.container(d.Spec.Template.Spec)
		if err != nil {
			return nil, fmt.Errorf("deployment %s: %w", d.Name, err)
		}
		grace := 30 * time.Second
		if g := d.Spec.Template.Spec.TerminationGracePeriodSeconds; g != nil {
			grace = time.Duration(*g) * time.Second
		}
		c.deployments = append(c.deployments, &deployment{spec: d, container: ct, grace: grace})
	}
	for _, wave := range c.waves() {
		if err := c.startWave(ctx, wave); err != nil {
			return nil, err
		}
	}
	if err := c.serveFront(); err != nil {
		return nil, err
	}
	if err := c.startCronJobs(life); err != nil {
		return nil, err
	}
	if err := c.serveControl(); err != nil {
		return nil, err
	}
	return c, nil
}

// startBackends starts the database and the broker in processes of their
// own; the broker keeps its port across starts (its log names it).
func (c *Cluster) startBackends(ctx context.Context, state string) error {
	c.DB = &proc.Proc{Name: "embedded-db", Bin: filepath.Join(c.opts.BinDir, "embedded-db"),
		Args: []string{"-dir", filepath.Join(c.opts.DataDir, "mongo")}, Log: newTailLog("embedded-db", c.opts.Log, 40)}
	if err := c.DB.Start(ctx); err != nil {
		return err
	}
	portFile := filepath.Join(state, "broker-port")
	port, err := os.ReadFile(portFile)
	if err != nil {
		addr, err := proc.FreeAddr()
		if err != nil {
			return err
		}
		_, p, _ := net.SplitHostPort(addr)
		port = []byte(p)
		if err := os.WriteFile(portFile, port, 0o600); err != nil {
			return err
		}
	}
	c.Broker = &proc.Proc{Name: "embedded-broker", Bin: filepath.Join(c.opts.BinDir, "embedded-broker"),
		Args: []string{"-dir", filepath.Join(c.opts.DataDir, "kafka"), "-port", strings.TrimSpace(string(port))},
		Log:  newTailLog("embedded-broker", c.opts.Log, 40)}
	return c.Broker.Start(ctx)
}

// keptSecret is 32 random bytes in base64, made once and kept in file:
// the ballot key must outlive every start of the world.
func keptSecret(file string) (string, error) {
	if b, err := os.ReadFile(file); err == nil {
		return strings.TrimSpace(string(b)), nil
	}
	var raw [32]byte
	_, _ = rand.Read(raw[:])
	key := base64.StdEncoding.EncodeToString(raw[:])
	return key, os.WriteFile(file, []byte(key+"\n"), 0o600)
}

// waves orders the Deployments for the first start: those whose Services
// other Deployments' environment names come first (identity: the others
// load its provider keys), the rest together.
func (c *Cluster) waves() [][]*deployment {
	var first, rest []*deployment
	for _, d := range c.deployments {
		called := false
		for _, s := range c.Manifests.Services {
			if !selects(s.Spec.Selector, d.spec.Spec.Template.Labels) {
				continue
			}
			for _, other := range c.deployments {
				for _, kv := range other.container.Env {
					if other != d && strings.Contains(kv, "//"+s.Name+":") {
						called = true
					}
				}
			}
		}
		if called {
			first = append(first, d)
		} else {
			rest = append(rest, d)
		}
	}
	return [][]*deployment{first, rest}
}

func selects(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// startWave starts the wave's Deployments side by side, each one's first
// replica before its others: the first creates the service's indexes
// (FerretDB v1 failed a connection when two created one collection's
// indexes at once).
func (c *Cluster) startWave(ctx context.Context, wave []*deployment) error {
	var wg sync.WaitGroup
	errs := make([]error, len(wave))
	for i, d := range wave {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := c.Manifests.replicas(d.spec, c.opts.Replicas)
			if n == 0 {
				return
			}
			if errs[i] = c.addReplica(ctx, d); errs[i] != nil || n < 2 {
				return
			}
			more := make([]error, n-1)
			var rest sync.WaitGroup
			for j := range more {
				rest.Add(1)
				go func() { defer rest.Done(); more[j] = c.addReplica(ctx, d) }()
			}
			rest.Wait()
			errs[i] = errors.Join(more...)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// addReplica starts one more replica of d and puts it in the endpoints.
// The replica lives with the cluster, not with ctx (a control request).
func (c *Cluster) addReplica(_ context.Context, d *deployment) error {
	d.mu.Lock()
	name := d.spec.Name + "-" + strconv.Itoa(d.serial)
	d.serial++
	d.mu.Unlock()
	spec := replicaSpec{container: d.container, binDir: c.opts.BinDir, hosts: c.hosts, extra: c.extraEnv, log: c.opts.Log}
	if c.clock != nil {
		spec.started = c.clock.started
	}
	r, err := startReplica(c.life, name, spec)
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.replicas = append(d.replicas, r)
	d.mu.Unlock()
	return nil
}

// extraEnv is what the cluster adds to every container it starts now.
func (c *Cluster) extraEnv() []string {
	var extra []string
	if c.opts.RateLimits != "" {
		extra = append(extra, "WORLD_RATE_LIMITS="+c.opts.RateLimits)
	}
	if c.clock != nil {
		extra = append(extra, c.clock.env()...)
	}
	return extra
}

// Stop ends the world: the front first, then every replica (SIGTERM, as a
// deletion), then the broker and the database.
func (c *Cluster) Stop() {
	for _, s := range c.servers {
		_ = s.Close()
	}
	if c.cancel != nil {
		c.cancel()
	}
	var wg sync.WaitGroup
	for _, d := range c.deployments {
		for _, r := range d.snapshot() {
			wg.Add(1)
			go func() { defer wg.Done(); r.Terminate(d.grace) }()
		}
	}
	wg.Wait()
	for _, cj := range c.crons {
		cj.wait()
	}
	if c.Broker != nil {
		c.Broker.Stop()
	}
	if c.DB != nil {
		c.DB.Stop()
	}
}

func (c *Cluster) deployment(name string) (*deployment, error) {
	for _, d := range c.deployments {
		if d.spec.Name == name || strings.TrimPrefix(d.spec.Name, Release+"-shared-world-") == name {
			return d, nil
		}
	}
	return nil, fmt.Errorf("no Deployment %q", name)
}

// Deployments are the rendered Deployments' names, in the chart's order.
func (c *Cluster) Deployments() []string {
	out := make([]string, len(c.deployments))
	for i, d := range c.deployments {
		out[i] = d.spec.Name
	}
	return out
}

// Replicas are a Deployment's current replicas.
func (c *Cluster) Replicas(name string) ([]*Replica, error) {
	d, err := c.deployment(name)
	if err != nil {
		return nil, err
	}
	return d.snapshot(), nil
}

package cluster

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"sharedworld.dev/hack/proc"
)

// Replica is one pod of a Deployment: a process of the service binary on
// ports of its own, in the endpoints of its Services while its readiness
// probe passes.
type Replica struct {
	Name string // <deployment>-<n>
	// Addrs are the local addresses of the container's named ports.
	Addrs map[string]string

	// mu orders the process's starts and stops: a restart after a crash
	// never races a deletion.
	mu       sync.Mutex
	proc     *proc.Proc
	launch   func(ctx context.Context) error
	ready    atomic.Bool
	stopping atomic.Bool
	restarts atomic.Int32
	tail     *tailLog
	// stopProbe ends the probe loop that restarts the process.
	stopProbe context.CancelFunc
}

// Ready reports whether the replica is in its Services' endpoints.
func (r *Replica) Ready() bool { return r.ready.Load() }

// Restarts counts the times the replica's process exited on its own and
// was started again.
func (r *Replica) Restarts() int { return int(r.restarts.Load()) }

// endpointLag is how long the endpoints keep a deleted pod: Kubernetes
// sends SIGTERM and removes the endpoint at the same time, and proxies
// learn of the removal a moment later. The drain delay covers it.
const endpointLag = time.Second

// podEnv is the container's environment for one replica: listen
// addresses of the container's ports (":8080") become the replica's own,
// in-cluster Service addresses the local ones standing for them, then
// extra (the cluster's own settings) on top.
func podEnv(c Container, addrs map[string]string, hosts serviceHosts, extra []string) []string {
	env := make([]string, 0, len(c.Env)+len(extra))
	for _, kv := range c.Env {
		k, v, _ := strings.Cut(kv, "=")
		for name, port := range c.Ports {
			if v == fmt.Sprintf(":%d", port) || v == fmt.Sprintf("0.0.0.0:%d", port) {
				v = addrs[name]
			}
		}
		env = append(env, k+"="+hosts.rewrite(v))
	}
	return append(env, extra...)
}

// replicaSpec is how to run one replica: its container, where the binaries
// are, the local stand-ins of the Services, the cluster's own settings
// (read at every start: the development clock moves) and what to do once
// started, before it is put in the endpoints.
type replicaSpec struct {
	container Container
	binDir    string
	hosts     serviceHosts
	extra     func() []string
	started   func(ctx context.Context, r *Replica) error
	log       io.Writer
}

// portAttempts bounds the starts of a replica whose port was taken.
const portAttempts = 3

// startReplica starts one replica and returns once its readiness probe
// passed (or its process exited or never became ready: the error carries
// its last log lines). The replica lives until Terminate, restarted after
// a crash, whatever becomes of ctx; life bounds it all.
func startReplica(life context.Context, name string, s replicaSpec) (*Replica, error) {
	r := &Replica{Name: name, Addrs: map[string]string{}, tail: newTailLog(name, s.log, 40)}
	var probe string
	pickAddrs := func() error {
		for port := range s.container.Ports {
			addr, err := proc.FreeAddr()
			if err != nil {
				return err
			}
			r.Addrs[port] = addr
		}
		var err error
		if probe, err = probeTarget(s.container.Readiness, s.container.Ports, r.Addrs); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	if err := pickAddrs(); err != nil {
		return nil, err
	}
	r.launch = func(ctx context.Context) error {
		r.proc = &proc.Proc{Name: name, Bin: filepath.Join(s.binDir, s.container.Binary), Args: s.container.Args,
			Env: podEnv(s.container, r.Addrs, s.hosts, s.extra()), Log: r.tail, Ready: proc.HTTPReady(probe), Isolated: true}
		if err := r.proc.Start(ctx); err != nil {
			return err
		}
		if s.started != nil {
			if err := s.started(ctx, r); err != nil {
				r.proc.Kill()
				return err
			}
		}
		r.ready.Store(true)
		return nil
	}
	r.mu.Lock()
	err := r.launch(life)
	// A free port is closed again before the replica listens on it, and
	// another process may take it in between: such a start is tried again
	// on other ports (the replica is in no endpoints yet).
	for range portAttempts - 1 {
		if err == nil || !strings.Contains(r.tail.String(), "address already in use") {
			break
		}
		if err = pickAddrs(); err == nil {
			err = r.launch(life)
		}
	}
	r.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("%w; its last log lines:\n%s", err, r.tail.String())
	}
	pctx, cancel := context.WithCancel(life)
	r.stopProbe = cancel
	go r.probe(pctx, s.container, proc.HTTPReady(probe))
	return r, nil
}

// probe runs the readiness probe at its period: failureThreshold failures
// in a row take the replica out of the endpoints, one success puts it
// back. A process that exits on its own is started again (a pod's
// restartPolicy Always), with the kubelet's doubling back-off.
func (r *Replica) probe(ctx context.Context, c Container, check func(context.Context) error) {
	period := time.Duration(max(c.Readiness.PeriodSeconds, 1)) * time.Second
	threshold := int(c.Readiness.FailureThreshold)
	if threshold == 0 {
		threshold = 3
	}
	failures, backoff := 0, 10*time.Millisecond
	r.mu.Lock()
	exited := r.proc.Exited()
	r.mu.Unlock()
	for {
		select {
		case <-ctx.Done():
			return
		case <-exited:
			r.ready.Store(false)
			if r.stopping.Load() {
				return
			}
			fmt.Fprintf(r.tail, "exited; starting again in %v\n", backoff)
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, 10*time.Second)
			r.mu.Lock()
			if r.stopping.Load() {
				r.mu.Unlock()
				return
			}
			r.restarts.Add(1)
			err := r.launch(ctx)
			exited = r.proc.Exited()
			r.mu.Unlock()
			if err != nil {
				fmt.Fprintf(r.tail, "restart failed: %v\n", err)
			}
			failures = 0
		case <-time.After(period):
			if r.stopping.Load() {
				continue
			}
			pctx, cancel := context.WithTimeout(ctx, max(time.Duration(c.Readiness.TimeoutSeconds)*time.Second, time.Second))
			err := check(pctx)
			cancel()
			if err == nil {
				failures = 0
				r.ready.Store(true)
			} else if failures++; failures >= threshold {
				r.ready.Store(false)
			}
		}
	}
}

// Terminate is a pod's deletion: SIGTERM, out of the endpoints a moment
// later (endpointLag), SIGKILL after grace. It reports whether the process
// exited on its own.
func (r *Replica) Terminate(grace time.Duration) bool {
	r.stopping.Store(true)
	lag := time.AfterFunc(endpointLag, func() { r.ready.Store(false) })
	r.mu.Lock()
	clean := r.proc.StopWithin(grace)
	r.mu.Unlock()
	lag.Stop()
	r.ready.Store(false)
	if r.stopProbe != nil {
		r.stopProbe()
	}
	return clean
}

// Kill is a crash: SIGKILL; the replica is started again like a pod's
// container after it died.
func (r *Replica) Kill() {
	r.ready.Store(false)
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.proc.Signal(syscall.SIGKILL)
}

// tailLog writes a replica's log lines, prefixed with its name, to out and
// keeps its last lines for the error that says why it did not start.
type tailLog struct {
	prefix string
	out    io.Writer
	mu     sync.Mutex
	lines  []string
	keep   int
	part   []byte
}

func newTailLog(name string, out io.Writer, keep int) *tailLog {
	return &tailLog{prefix: "[" + name + "] ", out: out, keep: keep}
}

func (t *tailLog) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.part = append(t.part, b...)
	for {
		i := strings.IndexByte(string(t.part), '\n')
		if i < 0 {
			break
		}
		line := string(t.part[:i])
		t.part = t.part[i+1:]
		if t.out != nil {
			fmt.Fprintln(t.out, t.prefix+line)
		}
		t.lines = append(t.lines, line)
		if len(t.lines) > t.keep {
			t.lines = t.lines[len(t.lines)-t.keep:]
		}
	}
	return len(b), nil
}

func (t *tailLog) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(append(append([]string{}, t.lines...), string(t.part)), "\n")
}

// Package crash drives the local runner as a user would, over HTTP, while
// killing it with SIGKILL and restarting it on the same data directory, and
// then checks that every acknowledged write is stored and has reached every
// projection exactly once. The runner test and `make fault` use it.
package crash

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"sharedworld.dev/hack/proc"
)

// unlimited raises the rate limits out of the crash test's way: it writes
// thousands of times from one source as fast as the world answers.
const unlimited = "writes=1000000/1m,register_agent=1000000/1h,register_source=1000000/1h,storage_writes=1000000/1m,garden_plantings=1000000/1m"

// Build compiles the runner into dir and returns the binary's path. It runs
// `go build` on the package path, so it works from anywhere in the workspace.
func Build(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "world")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "sharedworld.dev/hack/cmd/world")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the runner: %w\n%s", err, out)
	}
	return bin, nil
}

// Runner is the runner binary on one data directory; each Start is a new
// process on that directory.
type Runner struct {
	Bin, DataDir, Token string
	// Log receives the child's output (nil: discarded).
	Log io.Writer
	// Env adds KEY=VALUE settings to the child's environment (after the
	// runner's own, so they win).
	Env []string
	// Ready bounds the wait for /readyz after a start (0: 60 s).
	Ready time.Duration

	cmd  *exec.Cmd
	done chan struct{}
	// URL is the base URL of the running process.
	URL string
}

// Start runs the runner on a free loopback port and returns once it is ready.
func (r *Runner) Start(ctx context.Context) error {
	port, err := proc.FreePort()
	if err != nil {
		return err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(r.Bin)
	cmd.Env = append(os.Environ(), "WORLD_ADDR="+addr, "WORLD_DATA_DIR="+r.DataDir,
		"WORLD_AMBASSADOR_TOKEN="+r.Token, "WORLD_LOG_LEVEL=warn", "WORLD_RATE_LIMITS="+unlimited)
	cmd.Env = append(cmd.Env, r.Env...)
	if r.Log != nil {
		cmd.Stdout, cmd.Stderr = r.Log, r.Log
	}
	// Its own process group, so that a kill reaches everything it started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the runner: %w", err)
	}
	r.cmd, r.done, r.URL = cmd, make(chan struct{}), "http://"+addr
	go func() { _ = cmd.Wait(); close(r.done) }()
	ready := r.Ready
	if ready <= 0 {
		ready = 60 * time.Second
	}
	deadline := time.Now().Add(ready)
	for {
		select {
		case <-r.done:
			return errors.New("the runner exited while starting")
		default:
		}
		if resp, err := http.Get(r.URL + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			r.Kill()
			return fmt.Errorf("the runner did not become ready within %v", ready)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Pid is the running process's id (0 when it is not running).
func (r *Runner) Pid() int {
	if r.cmd == nil {
		return 0
	}
	return r.cmd.Process.Pid
}

// Kill sends SIGKILL to the runner's process group and waits for it to die.
func (r *Runner) Kill() {
	if r.cmd == nil {
		return
	}
	_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
	<-r.done
	r.cmd = nil
}

// Stop ends the runner gracefully (SIGTERM) and waits for it.
func (r *Runner) Stop() {
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(40 * time.Second):
		r.Kill()
	}
	r.cmd = nil
}

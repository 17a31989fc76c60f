package attack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// BuildRunner compiles the local runner (hack/cmd/world) into dir.
func BuildRunner(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "world")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "sharedworld.dev/hack/cmd/world")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the runner: %v\n%s", err, out)
	}
	return bin, nil
}

// Runner is the runner binary as a child process; each Start is a new
// process with the same environment on the same data directory.
type Runner struct {
	Bin, DataDir, Token string
	// Env is added to WORLD_ADDR, WORLD_DATA_DIR, WORLD_AMBASSADOR_TOKEN
	// and WORLD_DEV_CLOCK=1 (WORLD_RATE_LIMITS, WORLD_MONGO_URI, ...).
	Env []string
	Log io.Writer

	cmd  *exec.Cmd
	done chan struct{}
	// URL is the base URL of the running process.
	URL string
}

// Start runs the runner on a free loopback port; it returns once /readyz answers 200.
func (r *Runner) Start(ctx context.Context) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	cmd := exec.Command(r.Bin)
	cmd.Env = append(os.Environ(), "WORLD_ADDR="+addr, "WORLD_DATA_DIR="+r.DataDir,
		"WORLD_AMBASSADOR_TOKEN="+r.Token, "WORLD_DEV_CLOCK=1", "WORLD_LOG_LEVEL=warn")
	cmd.Env = append(cmd.Env, r.Env...)
	cmd.Stdout, cmd.Stderr = r.Log, r.Log
	// Its own process group, so a kill reaches everything it started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the runner: %w", err)
	}
	r.cmd, r.done, r.URL = cmd, make(chan struct{}), "http://"+addr
	go func() { _ = cmd.Wait(); close(r.done) }()
	deadline := time.Now().Add(90 * time.Second)
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
			return errors.New("the runner did not become ready within 90 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Kill sends SIGKILL to the runner's process group and waits for it.
func (r *Runner) Kill() {
	if r.cmd == nil {
		return
	}
	_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
	<-r.done
	r.cmd = nil
}

// Stop ends the runner with SIGTERM (a graceful shutdown) and waits for it.
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

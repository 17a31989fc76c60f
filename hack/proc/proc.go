// Package proc runs child processes that can be killed, paused and started
// again with the same arguments and environment: the fault scenarios' and
// the local cluster's services, broker and database.
package proc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Proc is one child process that can be started again after a kill, with
// the same arguments and environment.
type Proc struct {
	Name string
	Bin  string
	Args []string
	Env  []string
	// Isolated starts the process with Env alone, as a container starts,
	// instead of this process's environment plus Env.
	Isolated bool
	// Log receives the child's stderr, and its stdout after the first line.
	Log io.Writer
	// Ready is polled after a start until it returns nil (nil: the first
	// line of stdout is the readiness signal, see Line).
	Ready func(ctx context.Context) error

	cmd  *exec.Cmd
	done chan struct{}
	// Line is the first line the child wrote on stdout.
	Line string
}

// Start runs the process and returns once it is ready.
func (p *Proc) Start(ctx context.Context) error {
	cmd := exec.Command(p.Bin, p.Args...)
	cmd.Env = p.environ()
	cmd.Stderr = p.Log
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", p.Name, err)
	}
	p.cmd, p.done = cmd, make(chan struct{})
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		line := ""
		if sc.Scan() {
			line = sc.Text()
			if p.Ready != nil && p.Log != nil {
				fmt.Fprintln(p.Log, line)
			}
		}
		first <- line
		for sc.Scan() {
			if p.Log != nil {
				fmt.Fprintln(p.Log, sc.Text())
			}
		}
		_ = cmd.Wait()
		close(p.done)
	}()
	deadline := time.After(60 * time.Second)
	if p.Ready == nil {
		select {
		case p.Line = <-first:
			if p.Line != "" {
				return nil
			}
			p.Kill()
			return fmt.Errorf("%s exited while starting", p.Name)
		case <-deadline:
			p.Kill()
			return fmt.Errorf("%s did not start within 60 s", p.Name)
		}
	}
	for {
		select {
		case <-p.done:
			p.cmd = nil
			return fmt.Errorf("%s exited while starting", p.Name)
		case <-deadline:
			p.Kill()
			return fmt.Errorf("%s did not become ready within 60 s", p.Name)
		case <-ctx.Done():
			p.Kill()
			return ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
		if p.Ready(ctx) == nil {
			return nil
		}
	}
}

func (p *Proc) environ() []string {
	if p.Isolated {
		return append([]string{"PATH=" + os.Getenv("PATH")}, p.Env...)
	}
	return append(os.Environ(), p.Env...)
}

// Run runs the process to completion (a job's): nil when it exits 0.
func (p *Proc) Run(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, p.Bin, p.Args...)
	cmd.Env = p.environ()
	cmd.Stdout, cmd.Stderr = p.Log, p.Log
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", p.Name, err)
	}
	return nil
}

// Kill sends SIGKILL to the process group and waits for it to die.
func (p *Proc) Kill() {
	if p.cmd == nil {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGCONT) // a paused process dies too
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
	p.cmd = nil
}

// Stop ends the process with SIGTERM, and SIGKILL after 30 s.
func (p *Proc) Stop() { p.StopWithin(30 * time.Second) }

// StopWithin ends the process with SIGTERM, and SIGKILL after grace (a
// pod's terminationGracePeriodSeconds). It reports whether the process
// exited on its own.
func (p *Proc) StopWithin(grace time.Duration) bool {
	if p.cmd == nil {
		return true
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGCONT)
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		p.cmd = nil
		return true
	case <-time.After(grace):
		p.Kill()
		return false
	}
}

// Exited is closed when the process started last has exited (nil before a start).
func (p *Proc) Exited() <-chan struct{} { return p.done }

// ExitCode is the exit code of the process once it has exited (-1 when
// killed by a signal or still running).
func (p *Proc) ExitCode() int {
	if p.cmd == nil || p.cmd.ProcessState == nil {
		return -1
	}
	return p.cmd.ProcessState.ExitCode()
}

// Pause stops the process with SIGSTOP: its sockets stay open and the
// kernel still accepts connections, but nothing answers — a peer that is
// unreachable rather than gone.
func (p *Proc) Pause() error { return p.signal(syscall.SIGSTOP) }

// Signal sends s to the process group without waiting (SIGKILL: a crash
// that whoever watches Exited handles).
func (p *Proc) Signal(s syscall.Signal) error { return p.signal(s) }

// Resume undoes Pause.
func (p *Proc) Resume() error { return p.signal(syscall.SIGCONT) }

func (p *Proc) signal(s syscall.Signal) error {
	if p.cmd == nil {
		return errors.New(p.Name + " is not running")
	}
	return syscall.Kill(-p.cmd.Process.Pid, s)
}

// Running reports whether the process is alive.
func (p *Proc) Running() bool {
	if p.cmd == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// HTTPReady is a Ready probe: GET url answers 200.
func HTTPReady(url string) func(ctx context.Context) error {
	client := &http.Client{Timeout: 2 * time.Second}
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode >= 400 { // a kubelet's HTTP probe
			return fmt.Errorf("%s: %d", strings.TrimSpace(url), resp.StatusCode)
		}
		return nil
	}
}

package proc

import "syscall"

// sysProcAttr puts the child in a process group of its own (Kill ends
// what it started too) that dies with its parent: a test binary stopped
// by its timeout runs no cleanup, and a dozen servers would outlive it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

//go:build !linux

package proc

import "syscall"

// sysProcAttr puts the child in a process group of its own (Kill ends
// what it started too).
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

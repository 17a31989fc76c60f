package main

import (
	"bytes"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is the kernel's USER_HZ, the unit of /proc/<pid>/stat times
// (100 on Linux for every common architecture).
const clockTicks = 100

// cpuTicks is the user and system time a process has used, in clock
// ticks (0 when unknown).
func cpuTicks(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	fields := statFields(pid)
	if len(fields) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return utime + stime
}

// statFields are the fields of /proc/<pid>/stat after the command name
// (field 3, the state, first).
func statFields(pid int) []string {
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(raw[i+1:]))
}

// childOf finds a child process of parent (nginx's one worker), or 0.
func childOf(parent int) int {
	want := strconv.Itoa(parent)
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if f := statFields(pid); len(f) > 1 && f[1] == want {
			return pid
		}
	}
	return 0
}

// settle waits for the world to finish what the seeding left it (relays,
// consumers, the bulletin's rendering): until it spends under a tenth of a
// core over a second, at most two minutes. Rounds measured while it still
// catches up would charge that work to the reads. Without the world's pid
// it waits a second.
func settle(world string) {
	if worldPID <= 0 {
		time.Sleep(time.Second)
		return
	}
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		before := cpuTicks(worldPID)
		time.Sleep(time.Second)
		if float64(cpuTicks(worldPID)-before)/clockTicks < 0.1 {
			return
		}
	}
	log.Printf("the world at %s still busy after two minutes; measuring anyway", world)
}

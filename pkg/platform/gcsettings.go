package platform

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// gcPercent is the collector's target when GOGC is not set. A world's
// process keeps a small live heap (tens of MiB) and allocates fast (each
// sealed message's key derivation alone takes 19 MiB), so at Go's default
// of 100 it collected several times a second and requests waited on its
// marking; 400 trades memory the process has for fewer collections.
const gcPercent = 400

// memoryLimitShare is the part of a container's memory limit the Go heap
// may grow to when GOMEMLIMIT is not set: the collector runs harder near it
// instead of the container being killed, so the larger gcPercent is safe.
const memoryLimitShare = 0.85

// cgroupMemoryFiles are where a container's memory limit is read (cgroup v2,
// then v1).
var cgroupMemoryFiles = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// TuneGC sets the collector's target and memory limit from the process's
// surroundings, unless GOGC or GOMEMLIMIT say otherwise. Every binary of
// the world calls it first.
func TuneGC() {
	percent, limit := gcSettings(os.Getenv, os.ReadFile)
	if percent > 0 {
		debug.SetGCPercent(percent)
	}
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
}

// gcSettings decides TuneGC's settings; 0 leaves one as the runtime has it.
func gcSettings(getenv func(string) string, readFile func(string) ([]byte, error)) (percent int, limit int64) {
	if getenv("GOGC") == "" {
		percent = gcPercent
	}
	if getenv("GOMEMLIMIT") != "" {
		return percent, 0
	}
	for _, f := range cgroupMemoryFiles {
		b, err := readFile(f)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		// "max" (v2) or a huge number (v1) means no limit.
		if err != nil || n <= 0 || n >= 1<<60 {
			return percent, 0
		}
		return percent, int64(float64(n) * memoryLimitShare)
	}
	return percent, 0
}

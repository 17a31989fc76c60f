package load

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Sample is one look at a process under soak.
type Sample struct {
	At         time.Duration // since the soak began
	RSS        int64         // bytes
	Goroutines int
	FDs        int
	DBBytes    int64 // the embedded database's files, write-ahead logs included
	WALBytes   int64 // of which SQLite write-ahead logs (*-wal)
}

// Probe reads a process's resources: RSS and open fds from /proc, the
// goroutines from its /metrics (go_goroutines), and the size of a data
// directory.
type Probe struct {
	Pid        int
	MetricsURL string
	DBDir      string
	HTTP       *http.Client
}

// Read takes one sample.
func (p Probe) Read(ctx context.Context) (Sample, error) {
	var s Sample
	var err error
	if s.RSS, err = RSS(p.Pid); err != nil {
		return s, err
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", p.Pid))
	if err != nil {
		return s, err
	}
	s.FDs = len(fds)
	if p.MetricsURL != "" {
		if s.Goroutines, err = goroutines(ctx, p.HTTP, p.MetricsURL); err != nil {
			return s, err
		}
	}
	if p.DBDir != "" {
		s.DBBytes, s.WALBytes = dirSize(p.DBDir)
	}
	return s, nil
}

// RSS reads VmRSS of a process in bytes.
func RSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}

func goroutines(ctx context.Context, c *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "go_goroutines "); ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return int(n), err
		}
	}
	return 0, fmt.Errorf("%s has no go_goroutines", url)
}

func dirSize(dir string) (all, wal int64) {
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				all += info.Size()
				if strings.HasSuffix(path, "-wal") {
					wal += info.Size()
				}
			}
		}
		return nil
	})
	return all, wal
}

// Growth is the soak's rule against unbounded growth: split the samples
// into thirds by time; the last third's maximum may exceed the middle
// third's by at most Ratio plus Slack. The first third (warm-up: caches,
// pools and the connection pool filling) is not judged.
type Growth struct {
	Ratio float64
	Slack float64
}

// Judge applies the rule to one series; it returns a sentence and whether
// the series passes.
func (g Growth) Judge(name string, unit func(float64) string, series []float64) (string, bool) {
	if len(series) < 6 {
		return fmt.Sprintf("%s: %d samples are too few to judge (need 6)", name, len(series)), false
	}
	third := len(series) / 3
	middle, last := maxOf(series[third:2*third]), maxOf(series[2*third:])
	limit := middle*(1+g.Ratio) + g.Slack
	ok := last <= limit
	verdict := "bounded"
	if !ok {
		verdict = "GROWING"
	}
	return fmt.Sprintf("%-10s first third max %s, middle third max %s, last third max %s (limit %s): %s",
		name, unit(maxOf(series[:third])), unit(middle), unit(last), unit(limit), verdict), ok
}

func maxOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// MiB formats bytes as MiB.
func MiB(b float64) string { return fmt.Sprintf("%.1f MiB", b/(1<<20)) }

// Count formats a count.
func Count(n float64) string { return fmt.Sprintf("%.0f", n) }

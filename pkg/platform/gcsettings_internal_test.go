package platform

import (
	"io/fs"
	"testing"
)

func TestGCSettings(t *testing.T) {
	const v2, v1 = "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"
	cases := []struct {
		name        string
		env         map[string]string
		files       map[string]string
		wantPercent int
		wantLimit   int64
	}{
		{"no container, nothing set", nil, nil, gcPercent, 0},
		{"cgroup v2 limit", nil, map[string]string{v2: "268435456\n"}, gcPercent, 228170137},
		{"cgroup v2 without a limit", nil, map[string]string{v2: "max\n"}, gcPercent, 0},
		{"cgroup v1 limit", nil, map[string]string{v1: "402653184\n"}, gcPercent, 342255206},
		{"cgroup v1 without a limit", nil, map[string]string{v1: "9223372036854771712\n"}, gcPercent, 0},
		{"GOGC set: the runtime's", map[string]string{"GOGC": "100"}, map[string]string{v2: "268435456"}, 0, 228170137},
		{"GOMEMLIMIT set: the runtime's", map[string]string{"GOMEMLIMIT": "200MiB"}, map[string]string{v2: "268435456"}, gcPercent, 0},
		{"both set", map[string]string{"GOGC": "off", "GOMEMLIMIT": "1GiB"}, map[string]string{v2: "268435456"}, 0, 0},
		{"unreadable number", nil, map[string]string{v2: "lots"}, gcPercent, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			getenv := func(k string) string { return c.env[k] }
			read := func(f string) ([]byte, error) {
				if s, ok := c.files[f]; ok {
					return []byte(s), nil
				}
				return nil, &fs.PathError{Op: "open", Path: f, Err: fs.ErrNotExist}
			}
			percent, limit := gcSettings(getenv, read)
			if percent != c.wantPercent || limit != c.wantLimit {
				t.Errorf("got percent %d limit %d, want %d and %d", percent, limit, c.wantPercent, c.wantLimit)
			}
		})
	}
}

package platform

import (
	"strings"
	"testing"
)

// `--version` answers before any configuration is read: an image test and
// an operator checking a rollout run it with no WORLD_* variables set.
func TestMainPrintsVersion(t *testing.T) {
	t.Setenv("WORLD_MONGO_URI", "")
	for _, arg := range []string{"--version", "-version", "version"} {
		code, out, _ := runMain(t, []Unit{testUnit}, arg)
		if code != 0 || strings.TrimSpace(out) != "bulletin "+Version {
			t.Errorf("%s: exit %d, %q", arg, code, out)
		}
	}
}

package platform

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

var testUnit = Unit{Name: "bulletin", Jobs: []Job{{Name: "rebuild", Summary: "rebuild the projections",
	Run: func(context.Context, Env) error { return errors.New("must not run without configuration") }}}}

func runMain(t *testing.T, units []Unit, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut, units)
	return code, out.String(), errOut.String()
}

// A binary explains itself, rejects what it does not know, and stops on a
// bad configuration before it connects to anything, each with its own exit code.
func TestMainFailsClearly(t *testing.T) {
	for _, arg := range []string{"-h", "--help", "help"} {
		code, out, _ := runMain(t, []Unit{testUnit}, arg)
		if code != 0 || !strings.Contains(out, "usage: bulletin [job]") || !strings.Contains(out, "rebuild") {
			t.Errorf("%s: exit %d, usage %q", arg, code, out)
		}
	}
	code, _, errOut := runMain(t, []Unit{testUnit}, "rebiuld")
	if code != 2 || !strings.Contains(errOut, `unknown command "rebiuld"`) || !strings.Contains(errOut, "rebuild") {
		t.Errorf("unknown job: exit %d, %q", code, errOut)
	}
	if code, _, errOut = runMain(t, []Unit{testUnit}, "rebuild", "now"); code != 2 || !strings.Contains(errOut, "too many arguments") {
		t.Errorf("two arguments: exit %d, %q", code, errOut)
	}

	t.Setenv("WORLD_MONGO_URI", "")
	t.Setenv("WORLD_KAFKA_BROKERS", "")
	for _, args := range [][]string{nil, {"rebuild"}} {
		code, out, _ := runMain(t, []Unit{testUnit}, args...)
		if code != 2 || !strings.Contains(out, "invalid configuration") || !strings.Contains(out, "WORLD_MONGO_URI is required") {
			t.Errorf("%v without WORLD_MONGO_URI: exit %d, %q", args, code, out)
		}
	}

	t.Setenv("WORLD_MONGO_URI", "mongodb://127.0.0.1:1")
	t.Setenv("WORLD_KAFKA_BROKERS", "127.0.0.1:1")
	t.Setenv("WORLD_DEV_IDP", "true")
	checked := testUnit
	checked.Check = func() error { return errors.New("WORLD_PHASE must be Founding, got \"Later\"") }
	code, out, _ := runMain(t, []Unit{checked})
	if code != 2 || !strings.Contains(out, "WORLD_PHASE must be Founding") {
		t.Errorf("a unit's own settings are checked before connecting: exit %d, %q", code, out)
	}
}

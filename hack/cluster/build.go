package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"

	"sharedworld.dev/hack/services"
)

// Build compiles into dir one binary per service of the service table
// (named as its image), the standalone database and broker, and the
// extra packages given.
func Build(ctx context.Context, dir string, extra ...string) error {
	pkgs := append([]string{"sharedworld.dev/hack/cmd/embedded-broker", "sharedworld.dev/hack/cmd/embedded-db"}, extra...)
	for _, e := range services.Table {
		pkgs = append(pkgs, "sharedworld.dev/services/"+e.Name()+"/cmd/"+e.Name())
	}
	cmd := exec.CommandContext(ctx, "go", append([]string{"build", "-o", dir + "/"}, pkgs...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build: %w\n%s", err, out)
	}
	return nil
}

// Binaries are the binaries Build makes, built once into a temporary
// directory on first use: what a test binary that starts clusters shares
// between its tests. Remove deletes them (from TestMain).
type Binaries struct {
	once sync.Once
	dir  string
	err  error
}

// Dir builds the binaries the first time and returns their directory.
func (b *Binaries) Dir(ctx context.Context) (string, error) {
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "cluster-bin-"); b.err == nil {
			b.err = Build(ctx, b.dir)
		}
	})
	return b.dir, b.err
}

// Remove deletes the binaries, if they were built.
func (b *Binaries) Remove() {
	if b.dir != "" {
		_ = os.RemoveAll(b.dir)
	}
}

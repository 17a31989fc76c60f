package cluster

import (
	"context"
	"fmt"
	"os/exec"

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
		return fmt.Errorf("build: %v\n%s", err, out)
	}
	return nil
}

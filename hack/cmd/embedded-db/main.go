// Command embedded-db serves the embedded database of the local runner
// (FerretDB on SQLite files under -dir) on its own, in its own process, and
// prints its MongoDB URI on stdout once it listens. The fault suite (`make
// faults`) runs it apart from the service binaries so that the database can
// be made unreachable alone.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"sharedworld.dev/pkg/embedded"
)

func main() {
	dir := flag.String("dir", ".data/mongo", "directory of the database's SQLite files")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m, err := embedded.StartMongo(ctx, *dir, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "embedded-db:", err)
		os.Exit(1)
	}
	fmt.Println(m.URI)
	<-ctx.Done()
	m.Stop()
}

// Command embedded-db serves the embedded database of the local runner
// (FerretDB on SQLite files under -dir) on its own, in its own process, and
// prints its MongoDB URI on stdout once it listens. The fault suite (`make
// faults`) runs it apart from the service binaries so that the database can
// be made unreachable alone, and `make cluster` so that replicas in
// processes of their own share it. Several processes' guarded writes are
// atomic, as on MongoDB: the database holds a document's lock from a
// write's read to its commit (pkg/third_party/ferretdb, writeLocks).
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	_ "net/http/pprof" // served only when EMBEDDED_DB_PPROF_ADDR is set
	"os"
	"os/signal"
	"syscall"

	"sharedworld.dev/pkg/embedded"
)

func main() {
	dir := flag.String("dir", ".data/mongo", "directory of the database's SQLite files")
	flag.Parse()
	if addr := os.Getenv("EMBEDDED_DB_PPROF_ADDR"); addr != "" {
		// to see where a shared world's database spends its time:
		// EMBEDDED_DB_PPROF_ADDR=127.0.0.1:6061, then go tool pprof
		// http://127.0.0.1:6061/debug/pprof/profile
		go func() { fmt.Fprintln(os.Stderr, "embedded-db: pprof:", http.ListenAndServe(addr, nil)) }()
	}
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

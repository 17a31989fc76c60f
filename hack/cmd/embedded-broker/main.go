// Command embedded-broker serves the embedded Kafka broker of the local
// runner on its own, in its own process: a durable log under -dir on a
// fixed loopback port, with every topic of the event catalog. The fault
// suite (`make faults`) runs it apart from the service binaries so that the
// broker can be stopped, paused or killed alone; a restart on the same
// directory and port finds every event and committed offset it had.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"sharedworld.dev/pkg/embedded"
	"sharedworld.dev/proto/catalog"
)

func main() {
	dir := flag.String("dir", ".data/kafka", "directory of the broker's log, topics and committed offsets")
	port := flag.Int("port", 9092, "loopback port to listen on (0: a free one)")
	flag.Parse()
	k, err := embedded.StartDurableKafka(*dir, *port, catalog.AllTopics()...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "embedded-broker:", err)
		os.Exit(1)
	}
	// The address on stdout is the readiness signal of whoever started us.
	fmt.Println(k.Brokers[0])
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	k.Stop()
}

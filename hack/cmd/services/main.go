// Command services prints the service table (hack/services): as JSON by
// default, for the chart's Ingress; with -cmds, the package of each
// service's binary, one a line, for make build.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"sharedworld.dev/hack/services"
)

type entry struct {
	Name      string   `json:"name"`
	Cmd       string   `json:"cmd"`
	Prefixes  []string `json:"prefixes"`
	BodyLimit int      `json:"body_limit_bytes"`
	Jobs      []string `json:"jobs"`
}

func main() {
	cmds := flag.Bool("cmds", false, "print each service's binary package, one a line")
	flag.Parse()
	if *cmds {
		for _, e := range services.Table {
			fmt.Println(e.Cmd())
		}
		return
	}
	out := make([]entry, 0, len(services.Table))
	for _, e := range services.Table {
		jobs := []string{}
		for _, j := range e.Unit.Jobs {
			jobs = append(jobs, j.Name)
		}
		out = append(out, entry{Name: e.Name(), Cmd: e.Cmd(), Prefixes: e.Prefixes, BodyLimit: e.BodyLimit, Jobs: jobs})
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

package mongox

import (
	"context"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/event"
)

var cmdMu sync.Mutex
var cmdCounts = map[string]int{}

func init() {
	if os.Getenv("CMDCOUNT") == "" {
		return
	}
	go func() {
		for range time.Tick(2 * time.Second) {
			cmdMu.Lock()
			keys := make([]string, 0, len(cmdCounts))
			for k := range cmdCounts {
				keys = append(keys, k)
			}
			sort.Slice(keys, func(i, j int) bool { return cmdCounts[keys[i]] > cmdCounts[keys[j]] })
			f, _ := os.Create(fmt.Sprintf("%s.%d", os.Getenv("CMDCOUNT"), time.Now().Unix()))
			for _, k := range keys {
				fmt.Fprintf(f, "%8d %s\n", cmdCounts[k], k)
			}
			f.Close()
			cmdMu.Unlock()
		}
	}()
}

func cmdMonitor() *event.CommandMonitor {
	return &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		coll := ""
		if v, err := e.Command.LookupErr(e.CommandName); err == nil {
			coll, _ = v.StringValueOK()
		}
		cmdMu.Lock()
		cmdCounts[e.DatabaseName+"."+coll+" "+e.CommandName]++
		cmdMu.Unlock()
	}}
}

// Command tickets serves the tickets service alone, configured by WORLD_*
// environment variables (see the README's configuration tables).
package main

import (
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/tickets"
)

func main() { platform.Main(tickets.Unit) }

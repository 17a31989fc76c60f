// Command messaging serves the messaging service alone, configured by
// WORLD_* environment variables (see the README's configuration tables).
package main

import (
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/messaging"
)

func main() { platform.Main(messaging.Unit) }

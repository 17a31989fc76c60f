// Command plots-storage serves the plots-storage service alone, configured by WORLD_*
// environment variables (see the README's configuration tables).
package main

import (
	"sharedworld.dev/pkg/platform"
	plotsstorage "sharedworld.dev/services/plots-storage"
)

func main() { platform.Main(plotsstorage.Unit) }

// Command docs serves the world's public documents alone, configured by
// WORLD_* environment variables (see the README's configuration table).
package main

import (
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/docs"
)

func main() { platform.Main(docs.Unit) }

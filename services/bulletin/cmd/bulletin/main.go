// Command bulletin serves the bulletin service alone, configured by WORLD_*
// environment variables (see the README's configuration tables).
// `bulletin rebuild` instead rebuilds every projection by replaying every
// topic, then exits.
package main

import (
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/bulletin"
)

func main() { platform.Main(bulletin.Unit) }

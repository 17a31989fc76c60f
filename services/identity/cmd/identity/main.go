// Command identity serves the identity service alone, configured by WORLD_*
// environment variables (see the README's configuration tables).
package main

import (
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/identity"
)

func main() { platform.Main(identity.Unit) }

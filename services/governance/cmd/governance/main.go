// Command governance serves the governance service alone, configured by
// WORLD_* environment variables; `governance governance-check` runs the
// check once (the CronJob).
package main

import (
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/governance"
)

func main() { platform.Main(governance.Unit) }

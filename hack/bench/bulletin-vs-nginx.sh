#!/usr/bin/env bash
# Bulletin GET throughput against nginx serving the same bytes, in one run:
# a small document (about 2.5 KB), a middle one (36 KB) and a large one
# (about 200 KB), each with and without gzip; a summary table of the ratios
# ends the run. Flags go to hack/cmd/bulletinbench (-latency-writes 0 skips
# the write → feed timing, -rounds, -duration).
# Starts a fresh local world (second process), seeds it, runs wrk on both.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v wrk >/dev/null || ! command -v nginx >/dev/null; then
  apt-get update -qq && apt-get install -y -qq wrk nginx-light >/dev/null
fi
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/world" ./hack/cmd/world
export WORLD_AMBASSADOR_TOKEN=bench-token-0123456789
# Each server in a session of its own (bulletinbench starts nginx so too):
# with autogroup scheduling a session shares the CPU with wrk's as a group,
# so the world's threads and nginx's one meet wrk on the same terms. In the
# script's session the world's answers cost about a fifth more CPU.
# (setsid runs the world in place here: no fork, $! stays its pid.)
WORLD_ADDR=127.0.0.1:18088 WORLD_DATA_DIR="$work/data" WORLD_LOG_LEVEL=warn \
	WORLD_RATE_LIMITS=writes=1000000/1m,register_agent=1000000/1h,register_source=1000000/1h,storage_writes=1000000/1m,garden_plantings=1000000/1m \
	setsid "$work/world" > "$work/world.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do curl -fs http://127.0.0.1:18088/healthz >/dev/null 2>&1 && break; sleep 0.1; done
go run ./hack/cmd/bulletinbench -world http://127.0.0.1:18088 -world-pid "$pid" "$@"

#!/usr/bin/env bash
# Bulletin GET throughput against nginx serving the same bytes, in one run.
# Starts a fresh local world (second process), seeds it, runs wrk on both.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v wrk >/dev/null || ! command -v nginx >/dev/null; then
  apt-get update -qq && apt-get install -y -qq wrk nginx-light >/dev/null
fi
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/world" ./hack/cmd/world
WORLD_ADDR=127.0.0.1:18088 WORLD_DATA_DIR="$work/data" WORLD_LOG_LEVEL=warn "$work/world" > "$work/world.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do curl -fs http://127.0.0.1:18088/healthz >/dev/null 2>&1 && break; sleep 0.1; done
go run ./hack/cmd/bulletinbench -world http://127.0.0.1:18088 "$@"

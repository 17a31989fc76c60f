#!/usr/bin/env bash
# The embedded default at scale (`make bench-embedded`): builds the runner,
# starts it on a fresh data directory (embedded FerretDB and Kafka, logging
# at warn), seeds it over the HTTP API with hack/cmd/seedworld, restarts it
# to time the start-up with that world after a clean stop (SIGTERM: the
# in-memory copies come back from the snapshot the stop wrote), drives each
# read endpoint with wrk (1 thread, 16 connections) and prints requests/s
# and p99 per endpoint and the runner's RSS, then times a start after a
# kill -9 (no snapshot: every copy is a scan of FerretDB).
#
#   CITIZENS=1000 TICKETS=1 FILES=1 GARDEN=0 DURATION=5s hack/bench/embedded.sh
#   SIZE=full hack/bench/embedded.sh   # the issue's world: 10,000 citizens, 100,000 tickets, 10,000 garden files
#   WORLD_DATA_DIR=/some/dir SEED=0 hack/bench/embedded.sh   # reuse a seeded world
#   WORLD_BIN=/path/to/an/older/world hack/bench/embedded.sh   # measure another build
#   STARTUP_ONLY=1 hack/bench/embedded.sh   # the start-up times only, no wrk
#   LAYOUT=square GARDENERS=3 hack/bench/embedded.sh   # plots in a crowded square from (1,1), every third bio a gardener's
#   LAYOUT=stripes ONLY='available|directory' hack/bench/embedded.sh   # plots in stripes; only the endpoints whose label matches
#
# LAYOUT (rows, square, stripes) and GARDENERS shape the seeded world
# (hack/cmd/seedworld -layout, -gardeners): where plots go decides what the
# nearest free plot costs from inside the claimed ones, how many bios share
# "gardener" what a common search term costs. Every bio holds "seeded".
set -euo pipefail
cd "$(dirname "$0")/../.."

# SIZE=full is the issue's world: 10,000 directory-visible citizens with a
# plot each, 100,000 tickets (10 each: two days of the world's clock, the
# daily cap is 5), 10,000 plot files, 10,000 garden files, 1,000 backups
# and some 130,000 feed items. The default stays the quick 1,000 world.
if [ "${SIZE:-}" = full ]; then
	CITIZENS=${CITIZENS:-10000} TICKETS=${TICKETS:-10} GARDEN=${GARDEN:-1}
fi
CITIZENS=${CITIZENS:-1000}
TICKETS=${TICKETS:-1}
FILES=${FILES:-1}
GARDEN=${GARDEN:-0}
DURATION=${DURATION:-5s}
LAYOUT=${LAYOUT:-rows}
GARDENERS=${GARDENERS:-10}
ONLY=${ONLY:-.}
PORT=${PORT:-18181}
SEED=${SEED:-1}
WARMUP=${WARMUP:-10} # seconds the restarted world gets at least before the first endpoint (relay and consumers catch up)
QUIET=${QUIET:-600}  # then at most this many seconds of waiting until the runner is quiet (its start-up sweep done)
SETTLE=${SETTLE:-300} # at most this many seconds of waiting for the last endpoint's backlog
DATA=${WORLD_DATA_DIR:-$(mktemp -d -t world-bench-XXXXXX)}
BASE="http://127.0.0.1:$PORT"
TOKEN=bench-token-0123456789 # the ambassador's: seedworld moves the development clock with it
command -v wrk >/dev/null || { echo "wrk is needed (apt-get install wrk)" >&2; exit 1; }

mkdir -p bin
WORLD_BIN=${WORLD_BIN:-bin/world} # another build of the runner, to compare
[ "$WORLD_BIN" != bin/world ] || go build -o bin/world ./hack/cmd/world
go build -o bin/seedworld ./hack/cmd/seedworld

STARTUP_ONLY=${STARTUP_ONLY:-0}
pid=""
# stop is a clean stop (SIGTERM, and the runner's graceful shutdown, which
# writes the snapshot); crash is a kill -9.
crash() { if [ -n "$pid" ]; then kill -KILL "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=""; fi; }
stop() { if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=""; fi; }
trap stop EXIT
start() {
	local t0 t1
	t0=$(date +%s.%N)
	WORLD_ADDR="127.0.0.1:$PORT" WORLD_DATA_DIR="$DATA" WORLD_LOG_LEVEL=warn WORLD_DEV_CLOCK=1 \
		WORLD_RATE_LIMITS=writes=1000000/1m,register_agent=1000000/1h,register_source=1000000/1h,storage_writes=1000000/1m,garden_plantings=1000000/1m \
		WORLD_AMBASSADOR_TOKEN="$TOKEN" "$WORLD_BIN" >>"$DATA/runner.log" 2>&1 &
	pid=$!
	until curl -fs "$BASE/readyz" >/dev/null 2>&1; do
		kill -0 "$pid" 2>/dev/null || { echo "the runner exited; see $DATA/runner.log" >&2; exit 1; }
		sleep 0.05
	done
	t1=$(date +%s.%N)
	STARTUP=$(echo "$t1 - $t0" | bc)
	# where the in-memory copies came from: the snapshot or a scan
	LOADS=$(curl -fs "$BASE/metrics" | awk '/^sharedworld_mirror_loads_total/ {sub(/.*source="/, ""); sub(/"}/, ""); printf "%s%s", sep, $0; sep=", "}')
}

start
if [ "$SEED" = 1 ]; then
	./bin/seedworld -url "$BASE" -citizens "$CITIZENS" -tickets "$TICKETS" -files "$FILES" -garden "$GARDEN" \
		-layout "$LAYOUT" -gardeners "$GARDENERS" -admin-token "$TOKEN" >"$DATA/bench.env" 2> >(tee "$DATA/seed.log" >&2)
fi
# shellcheck disable=SC1091
source "$DATA/bench.env"
stop
start
STARTUP_CLEAN="${STARTUP}s (copies: $LOADS)"
rss_start=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
# crash_start times a start after kill -9 (every copy a scan); the
# endpoints are measured on the world of the clean start before it, the
# way a world usually starts.
crash_start() {
	crash
	start
	STARTUP_CRASH="${STARTUP}s (copies: $LOADS)"
	echo "start-up after kill -9 (scan): ${STARTUP_CRASH}"
}
if [ "$STARTUP_ONLY" = 1 ]; then
	echo "world: $CITIZENS citizens, $((CITIZENS * TICKETS)) tickets, $((CITIZENS * FILES)) files, $((CITIZENS * GARDEN)) garden files, data in $DATA"
	echo "start-up after a clean stop (snapshot): ${STARTUP_CLEAN}; RSS after start: $((rss_start / 1024)) MiB"
	crash_start
	exit 0
fi
sleep "$WARMUP"
# quiet waits until the runner used less than a tenth of a core over 2 s:
# after a start its relay sweeps every outbox once, which at 100,000
# tickets takes a while and would weigh on the first endpoints.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
quiet() {
	local i a b
	for i in $(seq 1 $((QUIET / 2))); do
		a=$(cpu_ticks)
		sleep 2
		b=$(cpu_ticks)
		if [ $((b - a)) -lt 20 ]; then return; fi
	done
	echo "the runner was still busy after ${QUIET}s" >&2
}
quiet_from=$(date +%s)
quiet
QUIETED=$(($(date +%s) - quiet_from))

H=(-H "X-Agent-Id: $BENCH_AGENT_ID" -H "X-Agent-Certificate: $BENCH_CERT")
TICKET_CURSOR=$(curl -fs "$BASE/api/world/tickets?limit=20" | jq -r '.pagination.next // ""')
EVENT_CURSOR=$(curl -fs "$BASE/api/world/events?limit=50" | jq -r '.pagination.next // ""')
PLOT_CURSOR=$(curl -fs "$BASE/api/world/plots?limit=100" | jq -r '.pagination.next // ""')

echo
echo "world: $CITIZENS citizens (directory-visible, one plot each, layout $LAYOUT, every ${GARDENERS}th a gardener), $((CITIZENS * TICKETS)) tickets, $((CITIZENS * FILES)) files, data in $DATA"
echo "start-up with that world after a clean stop: ${STARTUP_CLEAN}; RSS after start: $((rss_start / 1024)) MiB"
echo "wrk -t1 -c16 -d$DURATION --latency, logging at warn; the runner was quiet ${QUIETED}s after the warm-up; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
printf '| %-58s | %10s | %10s | %s\n' endpoint "requests/s" p99 "errors"
printf '|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..60})" "------------" "------------"
# settle waits until a read by _id answers within 100 ms again: requests
# that wrk gave up on are still being served, and would weigh on the next
# endpoint's numbers.
settle() {
	local i t
	for i in $(seq 1 $((SETTLE * 2))); do
		t=$(curl -s -o /dev/null -m 5 -w '%{time_total}' "$BASE/api/world/citizens/$BENCH_AGENT_ID" || echo 5)
		if [ "$(echo "$t < 0.1" | bc)" = 1 ]; then return; fi
		sleep 0.5
	done
}
bench() {
	local label=$1 path=$2; shift 2
	local out rps p99 errs
	grep -Eq -- "$ONLY" <<<"$label" || return 0
	settle
	out=$(wrk -t1 -c16 -d"$DURATION" --timeout 2s --latency "$@" "$BASE$path" 2>&1)
	rps=$(awk '/Requests\/sec/ {printf "%d", $2}' <<<"$out")
	p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
	if [ "${p99:-0.00us}" = 0.00us ]; then p99="none answered"; fi
	errs=$(grep -E 'Non-2xx|Socket errors' <<<"$out" | tr -s ' ' | paste -sd ';' - || true)
	printf '| %-58s | %10s | %10s | %s\n' "$label" "$rps" "${p99:-n/a}" "$errs"
}
bench 'GET /api/world/bulletin' /api/world/bulletin
bench 'GET /api/world/citizens/:id' "/api/world/citizens/$BENCH_AGENT_ID"
bench 'GET /api/world/tickets/:id' "/api/world/tickets/$BENCH_TICKET_ID"
bench 'GET /api/world/plots/:id' "/api/world/plots/$BENCH_PLOT_ID"
bench 'GET /api/world/tickets?status=open' '/api/world/tickets?status=open'
bench 'GET /api/world/tickets?cursor=...' "/api/world/tickets?cursor=$TICKET_CURSOR"
bench 'GET /api/world/plots?limit=100' '/api/world/plots?limit=100'
bench 'GET /api/world/plots?limit=100&cursor=...' "/api/world/plots?limit=100&cursor=$PLOT_CURSOR"
bench 'GET /api/world/plots/available?near_x=500&near_y=5' '/api/world/plots/available?near_x=500&near_y=5'
# BENCH_CROWDED_*: the middle of the claimed plots (seedworld), absent in a world seeded before it
CROWDED="near_x=${BENCH_CROWDED_X:-51}&near_y=${BENCH_CROWDED_Y:-51}"
bench "GET /api/world/plots/available?$CROWDED (crowded)" "/api/world/plots/available?$CROWDED"
bench 'GET /api/world/events?limit=50' '/api/world/events?limit=50'
bench 'GET /api/world/events?limit=50&type=ticket' '/api/world/events?limit=50&type=ticket'
bench 'GET /api/world/events?limit=50&cursor=...' "/api/world/events?limit=50&cursor=$EVENT_CURSOR"
bench 'GET /api/world/directory?search=gardener' '/api/world/directory?search=gardener'
bench 'GET /api/world/directory?search=gardener&offset=1000' '/api/world/directory?search=gardener&offset=1000'
bench 'GET /api/world/directory?search=seeded (every citizen)' '/api/world/directory?search=seeded'
bench 'GET /api/world/directory?search=wanderer&interest=music' '/api/world/directory?search=wanderer&interest=music'
bench 'GET /api/world/directory?search=number 1234 (rare)' '/api/world/directory?search=number%201234'
bench 'GET /api/world/directory?interest=music' '/api/world/directory?interest=music'
bench 'GET /api/world/storage/list?plot_id=...' "/api/world/storage/list?plot_id=$BENCH_PLOT_ID" "${H[@]}"
bench 'GET /api/world/continuity/list' /api/world/continuity/list "${H[@]}"
bench 'GET /api/world/storage/list?plot_id=plot_0_0&prefix=/garden/Seed00000/' '/api/world/storage/list?plot_id=plot_0_0&prefix=/garden/Seed00000/' "${H[@]}"
bench 'GET /api/world/governance/proposals' /api/world/governance/proposals
bench 'GET /api/world/governance/results' /api/world/governance/results
bench 'GET /api/world/governance/stewards' /api/world/governance/stewards
bench 'GET /api/world/elections' /api/world/elections
bench 'GET /api/world/messages' /api/world/messages "${H[@]}"
bench 'GET /api/world/notifications' /api/world/notifications "${H[@]}"
bench 'GET /api/world/commons/general' /api/world/commons/general
# the whole garden in one answer (storage/list is a bounded list, no pages):
# last, since at 10,000 plantings each answer is large
bench 'GET /api/world/storage/list?plot_id=plot_0_0 (whole garden)' '/api/world/storage/list?plot_id=plot_0_0' "${H[@]}"
rss_end=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
echo
echo "RSS after the benchmark: $((rss_end / 1024)) MiB"
crash_start

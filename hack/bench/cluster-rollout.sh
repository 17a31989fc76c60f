#!/usr/bin/env bash
# A rolling restart of every Deployment under load (`make cluster-rollout`):
# starts the chart's world (make cluster) at REPLICAS replicas (default 2)
# on a fresh data directory, drives it with the load tool (make load's mix:
# AGENTS agents acting about once every THINK for DURATION), and after
# ROLL_AFTER seconds rolls every Deployment of ROLL one after another (as
# `kubectl rollout restart`, each as its strategy says). Prints the load's
# report (requests, failures by route, every acknowledged write checked
# against what the world shows) and each roll's time; exits non-zero when
# a request failed or a write was lost.
#
#   hack/bench/cluster-rollout.sh
#   AGENTS=50 DURATION=120s REPLICAS=3 hack/bench/cluster-rollout.sh
#   ROLL="identity tickets" hack/bench/cluster-rollout.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
AGENTS=${AGENTS:-30}
THINK=${THINK:-1s}
DURATION=${DURATION:-150s}
REPLICAS=${REPLICAS:-2}
ROLL_AFTER=${ROLL_AFTER:-15}
ROLL=${ROLL-identity plots-storage tickets governance messaging docs bulletin-aggregator bulletin}
PORT=${PORT:-18282}
DATA=$(mktemp -d -t world-rollout-XXXXXX)
TOKEN=rollout-token-0123456789
LIMITS="writes=100000/1m,register_source=100000/1h,register_agent=100000/1h,storage_writes=100000/1m,garden_plantings=100000/1m"

mkdir -p bin
go build -o bin/world-cluster ./hack/cmd/cluster
go build -o bin/load ./hack/cmd/load
WORLD_ADDR=127.0.0.1:$PORT WORLD_DATA_DIR=$DATA WORLD_AMBASSADOR_TOKEN=$TOKEN REPLICAS=$REPLICAS \
	WORLD_RATE_LIMITS=$LIMITS bin/world-cluster >"$DATA/cluster.log" 2>&1 &
CLUSTER=$!
trap 'kill $CLUSTER 2>/dev/null; wait $CLUSTER 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 600); do
	grep -q "world ready on" "$DATA/cluster.log" && break
	kill -0 $CLUSTER 2>/dev/null || { cat "$DATA/cluster.log"; exit 1; }
	sleep 0.2
done
grep "world ready on" "$DATA/cluster.log"

(
	sleep "$ROLL_AFTER"
	for d in $ROLL; do
		began=$(date +%s.%N)
		WORLD_DATA_DIR=$DATA bin/world-cluster ctl roll "$d" >/dev/null
		printf 'rolled %-14s in %5.1f s\n' "$d" "$(echo "$(date +%s.%N) - $began" | bc)"
	done
) >"$DATA/rolls.log" 2>&1 &
ROLLER=$!
status=0
bin/load -url "http://127.0.0.1:$PORT" -agents "$AGENTS" -think "$THINK" -duration "$DURATION" || status=$?
# every roll must have ended while the load still ran
if kill -0 $ROLLER 2>/dev/null; then
	echo "the load ended before the last roll: raise DURATION" >&2
	status=1
fi
wait $ROLLER || status=1
cat "$DATA/rolls.log"
[ "$(grep -c '^rolled' "$DATA/rolls.log")" = "$(echo $ROLL | wc -w)" ] || { echo "a roll failed" >&2; status=1; }
exit $status

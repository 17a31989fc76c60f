#!/usr/bin/env bash
# GET /api/world/bulletin through the front of the chart's world (make
# cluster), with 1 and then 2 bulletin readers behind it (every other
# Deployment at the chart's count), measured with wrk for DURATION at
# CONNECTIONS connections. Prints requests/s and latency per reader count
# and the machine's load average before each run: on a small shared
# machine the load generator, the front and the readers share the cores,
# so the numbers say more about the machine than about the readers.
#
#   hack/bench/bulletin-readers.sh
#   READERS="1 2 3" DURATION=30s hack/bench/bulletin-readers.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
READERS=${READERS:-1 2}
DURATION=${DURATION:-20s}
CONNECTIONS=${CONNECTIONS:-32}
PORT=${PORT:-18283}
command -v wrk >/dev/null || { echo "needs wrk (Debian: apt-get install wrk)" >&2; exit 1; }
mkdir -p bin
go build -o bin/world-cluster ./hack/cmd/cluster
for n in $READERS; do
	DATA=$(mktemp -d -t world-readers-XXXXXX)
	printf 'services:\n  bulletin:\n    replicas: %d\n    autoscaling:\n      enabled: false\n' "$n" >"$DATA/values.yaml"
	WORLD_ADDR=127.0.0.1:$PORT WORLD_DATA_DIR=$DATA/world CLUSTER_VALUES=$DATA/values.yaml \
		WORLD_AMBASSADOR_TOKEN=readers-token-0123456789 bin/world-cluster >"$DATA/cluster.log" 2>&1 &
	CLUSTER=$!
	for _ in $(seq 600); do
		grep -q "world ready on" "$DATA/cluster.log" && break
		kill -0 $CLUSTER 2>/dev/null || { cat "$DATA/cluster.log"; exit 1; }
		sleep 0.2
	done
	echo "== $n reader(s); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
	wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency "http://127.0.0.1:$PORT/api/world/bulletin" | grep -E "Requests/sec|Latency|50%|99%|requests in"
	kill $CLUSTER; wait $CLUSTER 2>/dev/null || true
	rm -rf "$DATA"
done

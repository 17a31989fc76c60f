#!/usr/bin/env bash
# Live followers on one bulletin reader (hack/cmd/followbench): the
# chart's world (make cluster) with one reader allowed MAX_SUBSCRIBERS
# streams, FOLLOWERS idle followers opened straight to it (its RSS before
# and after), then RATE announcements a second for DURATION with the
# write → delivered latency over every follower's copy. Also prints the
# machine's load average: the followers' process parses every copy on
# the same cores as the reader.
#
#   hack/bench/bulletin-followers.sh
#   FOLLOWERS=1000 RATE=50 DURATION=30s hack/bench/bulletin-followers.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
FOLLOWERS=${FOLLOWERS:-10000}
MAX_SUBSCRIBERS=${MAX_SUBSCRIBERS:-12000}
RATE=${RATE:-50}
DURATION=${DURATION:-30s}
PORT=${PORT:-18284}
TOKEN=followers-token-0123456789
mkdir -p bin
go build -o bin/world-cluster ./hack/cmd/cluster
go build -o bin/followbench ./hack/cmd/followbench
DATA=$(mktemp -d -t world-followers-XXXXXX)
printf 'services:\n  bulletin:\n    replicas: 1\n    maxSubscribers: %d\n    autoscaling:\n      enabled: false\n' "$MAX_SUBSCRIBERS" >"$DATA/values.yaml"
WORLD_ADDR=127.0.0.1:$PORT WORLD_DATA_DIR=$DATA/world CLUSTER_VALUES=$DATA/values.yaml \
	WORLD_AMBASSADOR_TOKEN=$TOKEN bin/world-cluster >"$DATA/cluster.log" 2>&1 &
CLUSTER=$!
trap 'kill $CLUSTER 2>/dev/null; wait $CLUSTER 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 600); do
	grep -q "world ready on" "$DATA/cluster.log" && break
	kill -0 $CLUSTER 2>/dev/null || { cat "$DATA/cluster.log"; exit 1; }
	sleep 0.2
done
# the reader's own address and process (the streams bypass the front)
READER=$(WORLD_DATA_DIR=$DATA/world bin/world-cluster ctl state |
	python3 -c 'import json,sys; s=json.load(sys.stdin); print([d for d in s["deployments"] if d["name"].endswith("bulletin")][0]["replicas"][0]["addrs"]["http"])')
READER_PORT=${READER##*:}
PID=$(ss -ltnpH "sport = :$READER_PORT" | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1)
echo "== one reader at $READER (pid $PID); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
bin/followbench -reader "http://$READER" -front "http://127.0.0.1:$PORT" -token $TOKEN -pid "$PID" \
	-followers "$FOLLOWERS" -rate "$RATE" -duration "$DURATION"
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

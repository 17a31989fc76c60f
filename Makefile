# Shared World — developer entry points. Everything runs with Go alone.
SHELL := /bin/bash
MODULES := $(shell go list -m -f '{{.Dir}}' 2>/dev/null)
PACKAGES := $(patsubst $(CURDIR)/%,./%/...,$(MODULES))

.PHONY: help browser-tools run cluster test test-embedded test-shared test-cluster fuzz lint vet fmt bench bench-embedded build generate fault faults load soak attack

## run: start the whole world locally on the embedded default (http://127.0.0.1:8080)
run:
	@mkdir -p bin
	go build -o bin/world ./hack/cmd/world
	@exec ./bin/world

## cluster: the world as the Helm chart configures it, on this machine:
## the chart rendered with deploy/values-local.yaml, each Deployment's
## replicas as processes of the service binaries, the Ingress rules on
## WORLD_ADDR, the CronJob on its schedule, the database and the broker in
## processes of their own (data under ./.data-cluster). Takes make run's
## variables plus REPLICAS (every Deployment's replica count);
## `bin/world-cluster ctl state|roll|kill|restart|run` drives it
cluster:
	@mkdir -p bin
	go build -o bin/world-cluster ./hack/cmd/cluster
	@exec ./bin/world-cluster

## test: every module's tests against embedded FerretDB and Kafka, in both
## backend modes: embedded (this process the only writer, as make run) and
## shared (every version guard and MongoDB query branch, as replicas run);
## then the end-to-end tests again against the chart's world (make
## cluster, REPLICAS=2). Every fuzz target's committed corpus runs in
## these tests as seed inputs.
test: test-embedded test-shared test-cluster

## fuzz: every fuzz target, fuzzing for FUZZTIME each (3s by default; CI
## runs it after make test)
fuzz:
	hack/fuzz-brief.sh

## browser-tools: what the web board's browser tests need, installed where
## missing: Debian's chromium and axe-core from npm (hack/browser/install.sh;
## a second run only finds them)
browser-tools:
	hack/browser/install.sh

test-embedded test-shared test-cluster: browser-tools

test-embedded test-shared: test-%:
	SHAREDWORLD_TEST_BACKEND=$* go test -count=1 -timeout 20m $(PACKAGES)

REPLICAS ?= 2
test-cluster:
	REPLICAS=$(REPLICAS) go test -p 1 -tags cluster -count=1 -timeout 20m ./hack/world/ ./hack/cluster/

## lint: gofmt, go vet and golangci-lint (.golangci.yml: errcheck, staticcheck,
## errorlint, nilerr, ineffassign, unused) over every module
lint: vet
	@out=$$(gofmt -l $(MODULES)); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	hack/golangci.sh

vet:
	go vet $(PACKAGES)

fmt:
	gofmt -w $(MODULES)

## build: one binary per service of the service table (hack/services) plus
## the local tools and worldctl, into ./bin
build:
	@mkdir -p bin
	go build -o bin/ $$(go run ./hack/cmd/services -cmds) ./hack/cmd/... ./pkg/cmd/...

## bench: the benchmarks (numbers quoted in the docs come from here)
bench:
	go test -run '^$$' -bench . -benchtime 3s $(PACKAGES)

## bench-embedded: the embedded default at scale: seeds a fresh local world
## over the HTTP API (hack/cmd/seedworld) and prints requests/s and p99 per
## read endpoint, start-up time and RSS (CITIZENS=, TICKETS=, FILES=, GARDEN=,
## DURATION=; SIZE=full for the issue's 10,000-citizen world)
bench-embedded:
	hack/bench/embedded.sh

## faults: the fault scenarios, each on a fresh world, each printing
## acknowledged / stored / projected counts per kind: the runner killed
## with SIGKILL mid-load several times; the broker unreachable under load
## (service binaries against a standalone broker and database); the
## database unreachable under load (only clean 503s with Retry-After);
## every event delivered twice; the bulletin killed mid-batch; the database
## hung (SIGSTOP, then SIGCONT) under load, every request answered within
## the request deadline. Fails when anything was lost or doubled. FAULT_FLAGS=-short is the CI size
## (flags: go run ./hack/cmd/faults -help); `fault` is the old name
faults fault:
	go run ./hack/cmd/faults $(FAULT_FLAGS)

## load: AGENTS simulated agents (default 100), each with its own
## certificate and signed requests, drive a fresh local runner with the
## realistic mix for DURATION (default 30s), acting about once every THINK
## (default 1s), arriving 20 a second; prints per route requests, refusals by rule, errors and
## p50/p90/p99/max, the write → visible on the feed latency, and checks
## every acknowledged write; exits 1 on any error or missing write.
## RUNNER_ENV="K=V ..." passes settings (such as rate limits) to the runner;
## LOAD_FLAGS= more flags (go run ./hack/cmd/load -help), e.g.
## LOAD_FLAGS="-open-loop 50,100,200,400 -step 10s" for the saturation
## curve: writes arriving at each rate in turn, latency from the intended
## send time, achieved writes/s, p50/p99 per kind and the runner's CPU
AGENTS ?= 100
DURATION ?= 30s
THINK ?= 1s
RUNNER_ENV ?=
load:
	go run ./hack/cmd/load -agents $(AGENTS) -duration $(DURATION) -think $(THINK) \
		$(foreach e,$(RUNNER_ENV),-runner-env $(e)) $(LOAD_FLAGS)

## soak: the same mix at a steady SOAK_RATE actions/s (default 25) from
## SOAK_AGENTS agents (default 50) for SOAK_DURATION (default 10m; 60s for
## a short run), sampling the runner's RSS, goroutines, fds and database
## size; fails when RSS or goroutines grow without bound (last third's max
## above the middle third's max by more than 10 % plus a small slack).
## Reports idle RSS of the runner and of each service binary that
## `make build` put in ./bin
SOAK_DURATION ?= 10m
SOAK_AGENTS ?= 50
SOAK_RATE ?= 25
soak:
	go run ./hack/cmd/soak -agents $(SOAK_AGENTS) -duration $(SOAK_DURATION) -rate $(SOAK_RATE) \
		$(foreach e,$(RUNNER_ENV),-runner-env $(e)) $(SOAK_FLAGS)

## attack: attacks on the world (garden filling, rate limits,
## signature replay after SIGTERM and SIGKILL restarts and across two
## replicas on a shared database, credentials, bad input on every documented
## route) against runners it starts; prints requests and anomalies per
## category and fails on any (ATTACK_FLAGS=-url http://... attacks a running
## world; go run ./hack/cmd/attack -help)
attack:
	go run ./hack/cmd/attack $(ATTACK_FLAGS)

.PHONY: cluster-failover

## cluster-failover: the bulletin's failover and rollout runs at full size
## under make cluster (REPLICAS=3 of every Deployment): 20 live followers
## moving between the readers during 5,000 writes while the leading
## aggregator is killed twice and a reader once, then a rolling restart of
## every Deployment under load; every follower must see every item once,
## in order (make test-cluster runs both at a bounded size)
cluster-failover:
	FOLLOWERS=20 WRITES=5000 REPLICAS=3 go test -tags cluster -count=1 -timeout 90m -v \
		-run 'TestBulletin(Failover|Rollout)UnderLoad' ./hack/cluster/

.PHONY: images chart-files test-k8s operator-generate

## images: one OCI image per service of the service table plus the operator
## and the probe (the chart's helm test), built without a container daemon
## into ./bin/images (<name>.tar each, and an OCI layout oci/ with them all);
## reproducible: timestamps are the last commit's time. The default tag is
## the chart's appVersion, the tag the chart deploys by default (the source
## revision is the images' org.opencontainers.image.revision label)
IMAGE_VERSION ?= $(shell sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$$/\1/p' charts/shared-world/Chart.yaml)
IMAGE_REPO ?= sharedworld
images:
	SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct 2>/dev/null || echo 0) go run ./hack/k8s/cmd/images \
		-out bin/images -version $(IMAGE_VERSION) -repo $(IMAGE_REPO) \
		-revision $$(git rev-parse HEAD 2>/dev/null || echo unknown)

## chart-files: refresh the chart's copies of the service table (its
## Ingress) and of deploy/'s rules and dashboards (a test checks they agree)
chart-files:
	go run ./hack/cmd/services > charts/shared-world/files/services.json
	mkdir -p charts/shared-world/files/monitoring/dashboards
	cp deploy/prometheus/rules.yaml charts/shared-world/files/monitoring/rules.yaml
	cp deploy/dashboards/*.json charts/shared-world/files/monitoring/dashboards/
	mkdir -p charts/shared-world/crds
	cp operator/config/crd/bases/sharedworld.dev_worlds.yaml charts/shared-world/crds/
	cp operator/config/rbac/role.yaml charts/shared-world/files/operator-role.yaml

## operator-generate: the operator's deep copies, CRD and RBAC from its
## markers (controller-gen from hack/k8s-tools.sh), then the chart's copies
operator-generate:
	K8S_VERSION=$(K8S_VERSION) hack/k8s-tools.sh $(K8S_TOOLS)
	cd operator && $(K8S_TOOLS)/controller-gen object:headerFile=hack/boilerplate.go.txt paths=./... && \
		$(K8S_TOOLS)/controller-gen rbac:roleName=manager-role crd paths=./... \
		output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac
	$(MAKE) chart-files

## test-k8s: the chart, the operator and the alerts against a real
## kube-apiserver (with controllers and kwok fake nodes); builds the tools
## it needs once into K8S_TOOLS (hack/k8s-tools.sh: Go module proxy only)
K8S_VERSION ?= v1.37.2
K8S_TOOLS ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/sharedworld-k8s/$(K8S_VERSION)
test-k8s:
	K8S_VERSION=$(K8S_VERSION) hack/k8s-tools.sh $(K8S_TOOLS)
	cd hack/k8s && KUBEBUILDER_ASSETS=$(K8S_TOOLS) go test -tags k8s -count=1 -timeout 30m ./...
	cd operator && KUBEBUILDER_ASSETS=$(K8S_TOOLS) go test -tags k8s -count=1 -timeout 10m ./...

include proto/Makefile.generate

## help: every target with what it does (from the comment above it)
help:
	@awk '/^## / { sub(/^## /, ""); doc = doc (doc == "" ? "" : " ") $$0; next } \
		/^[a-z][a-z-]*( [a-z-]+)*:/ && doc != "" { split($$0, t, ":"); sub(/^[a-z-]+: /, "", doc); \
			n = split(doc, w, " "); line = sprintf("  %-16s", t[1]); \
			for (i = 1; i <= n; i++) { if (length(line) + length(w[i]) > 98) { print line; line = sprintf("%18s", "") } \
				line = line " " w[i] } print line } { doc = "" }' $(MAKEFILE_LIST)

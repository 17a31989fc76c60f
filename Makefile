# Shared World — developer entry points. Everything runs with Go alone.
SHELL := /bin/bash
MODULES := $(shell go list -m -f '{{.Dir}}' 2>/dev/null)
PACKAGES := $(patsubst $(CURDIR)/%,./%/...,$(MODULES))

.PHONY: run test test-embedded test-shared lint vet fmt bench bench-embedded build generate fault

## run: start the whole world locally on the embedded default (http://127.0.0.1:8080)
run:
	@mkdir -p bin
	go build -o bin/world ./hack/cmd/world
	@exec ./bin/world

## test: every module's tests against embedded FerretDB and Kafka, in both
## backend modes: embedded (this process the only writer, as make run) and
## shared (every version guard and MongoDB query branch, as replicas run)
test: test-embedded test-shared

test-embedded test-shared: test-%:
	SHAREDWORLD_TEST_BACKEND=$* go test -count=1 -timeout 20m $(PACKAGES)

## lint: gofmt and go vet over every module
lint: vet
	@out=$$(gofmt -l $(MODULES)); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	go vet $(PACKAGES)

fmt:
	gofmt -w $(MODULES)

## build: one binary per service of the service table (hack/services) plus
## the local tools, into ./bin
build:
	@mkdir -p bin
	go build -o bin/ $$(go run ./hack/cmd/services -cmds) ./hack/cmd/...

## bench: the benchmarks (numbers quoted in the docs come from here)
bench:
	go test -run '^$$' -bench . -benchtime 3s $(PACKAGES)

## bench-embedded: the embedded default at scale: seeds a fresh local world
## over the HTTP API (hack/cmd/seedworld) and prints requests/s and p99 per
## read endpoint, start-up time and RSS (CITIZENS=, TICKETS=, FILES=, DURATION=)
bench-embedded:
	hack/bench/embedded.sh

## fault: the crash test at scale: thousands of writes over HTTP while the
## runner is killed with SIGKILL several times; prints acknowledged, stored
## and projected counts per kind (flags: go run ./hack/cmd/crashtest -help)
fault:
	go run ./hack/cmd/crashtest $(FAULT_FLAGS)

include proto/Makefile.generate

#!/usr/bin/env bash
# Runs golangci-lint (.golangci.yml) in every module of go.work, building
# the pinned version into the Go cache's bin on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
version=v2.15.0
bin="$(go env GOPATH)/bin/golangci-lint-$version"
if [ ! -x "$bin" ]; then
	GOBIN="$(mktemp -d)" sh -c "go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$version && mv \"\$GOBIN/golangci-lint\" \"$bin\""
fi
status=0
for dir in $(go list -m -f '{{.Dir}}'); do
	(cd "$dir" && "$bin" run --config "$OLDPWD/.golangci.yml" ./...) || status=1
done
exit $status

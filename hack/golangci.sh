#!/usr/bin/env bash
# Runs golangci-lint (.golangci.yml) over every module of go.work in one
# pass, building the pinned version into GOPATH/bin on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
version=v2.15.0
bin="$(go env GOPATH)/bin/golangci-lint-$version"
if [ ! -x "$bin" ]; then
	tmp="$(mktemp -d)"
	GOBIN="$tmp" go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$version"
	mkdir -p "$(dirname "$bin")"
	mv "$tmp/golangci-lint" "$bin"
	rmdir "$tmp"
fi
packages=()
for dir in $(go list -m -f '{{.Dir}}'); do
	packages+=("./${dir#"$PWD"/}/...")
done
exec "$bin" run "$@" "${packages[@]}"

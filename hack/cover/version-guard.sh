#!/usr/bin/env bash
# Shows that every service's tests run the version-guarded branch of the one
# update path (mongox.Docs.Update on a shared database): the guarded filter
# and the retry after another writer won. Runs each service's tests in the
# shared backend mode with coverage of pkg/mongox and reports both lines.
set -euo pipefail
cd "$(dirname "$0")/../.."
docs=pkg/mongox/docs.go
retry=$(grep -n 'continue // another replica changed' "$docs" | cut -d: -f1)
guard=$(grep -n 'for k, v := range guard' pkg/mongox/db.go | cut -d: -f1)
status=0
covered() { # profile file line -> total count of blocks covering that line
	awk -F'[: ,]' -v f="$2" -v l="$3" '$1 ~ f"$" { split($2, a, "."); split($3, b, "."); if (a[1] <= l && l <= b[1]) n += $NF } END { print n + 0 }' "$1"
}
for svc in services/*/; do
	name=$(basename "$svc")
	grep -rqs --include='*.go' 'mongox.NewDocs' "$svc" || continue # keeps no aggregates
	prof=$(mktemp)
	(cd "$svc" && SHAREDWORLD_TEST_BACKEND=shared go test -count=1 -covermode=count -coverpkg=sharedworld.dev/pkg/mongox -coverprofile="$prof" ./... >/dev/null)
	g=$(covered "$prof" pkg/mongox/db.go "$guard")
	r=$(covered "$prof" "$docs" "$retry")
	printf '%-16s guarded filter: %6d runs   retry after a clash: %4d runs\n' "$name" "$g" "$r"
	if [ "$g" -eq 0 ] || [ "$r" -eq 0 ]; then status=1; fi
	rm -f "$prof"
done
exit $status

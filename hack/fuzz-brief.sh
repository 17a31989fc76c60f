#!/usr/bin/env bash
# Runs every fuzz target of the workspace briefly (FUZZTIME each, 3s by
# default). The committed corpora (testdata/fuzz) already run as normal
# tests in `make test`; this looks a little further each time.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-3s}
for mod in $(go list -m -f '{{.Dir}}'); do
	while IFS= read -r file; do
		dir=$(dirname "$file")
		for target in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)\(' "$file" | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/'); do
			echo "fuzz ${dir#"$PWD"/} $target ($FUZZTIME)"
			(cd "$dir" && go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" . >/dev/null) || {
				echo "fuzz $target in $dir failed; the failing input is under $dir/testdata/fuzz/$target" >&2
				exit 1
			}
		done
	done < <(grep -rl --include='*_test.go' -E '^func Fuzz' "$mod" | grep -v '/vendor/' | sort)
done

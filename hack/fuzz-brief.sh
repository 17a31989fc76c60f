#!/usr/bin/env bash
# Runs every fuzz target of the workspace briefly (FUZZTIME each, 3s by
# default). The committed corpora (testdata/fuzz) already run as normal
# tests in `make test`; this looks a little further each time.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-3s}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# fuzz_once fuzzes one target; on failure it prints the end of the output.
fuzz_once() {
	local dir=$1 target=$2
	(cd "$dir" && go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" . >"$out" 2>&1) && return 0
	tail -n 25 "$out" >&2
	return 1
}

# new_inputs lists the target's corpus files git does not know: inputs the
# fuzzer found failing.
new_inputs() {
	git -C "$1" status --porcelain --untracked-files=all -- "testdata/fuzz/$2" 2>/dev/null || true
}
for mod in $(go list -m -f '{{.Dir}}'); do
	while IFS= read -r file; do
		dir=$(dirname "$file")
		for target in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)\(' "$file" | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/'); do
			echo "fuzz ${dir#"$PWD"/} $target ($FUZZTIME)"
			fuzz_once "$dir" "$target" && continue
			# A failing input found is written under testdata/fuzz and fails
			# every run after it (the corpus runs first), so a second run
			# passes only when the first failed in the fuzzing engine itself
			# (a worker that stopped answering): say so, and go on.
			if [ -z "$(new_inputs "$dir" "$target")" ] && fuzz_once "$dir" "$target"; then
				echo "fuzz $target in $dir: the first run failed without a failing input (above) and a second run passed" >&2
				continue
			fi
			echo "fuzz $target in $dir failed; the failing input is under $dir/testdata/fuzz/$target" >&2
			exit 1
		done
	done < <(grep -rl --include='*_test.go' -E '^func Fuzz' "$mod" | grep -v '/vendor/' | sort)
done

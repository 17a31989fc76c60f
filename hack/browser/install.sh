#!/usr/bin/env bash
# What the web board's browser tests need, installed where missing and
# found again when present (a second run takes well under a second):
# Debian's chromium (apt-get) and axe-core (the npm registry, through npm),
# unpacked into the cache directory the tests read (BROWSER_TOOLS).
set -euo pipefail
AXE_VERSION=${AXE_VERSION:-4.14.1}
BROWSER_TOOLS=${BROWSER_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/sharedworld-browser}

if ! command -v chromium >/dev/null 2>&1; then
	echo "installing chromium (apt-get)"
	sudo=""
	if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
	# An install fails on a stale package list; update only then.
	$sudo apt-get install -y -qq chromium >/dev/null 2>&1 ||
		{ $sudo apt-get update -qq && $sudo apt-get install -y -qq chromium >/dev/null; }
fi

axe="$BROWSER_TOOLS/axe-core-$AXE_VERSION/axe.min.js"
if [ ! -s "$axe" ]; then
	echo "installing axe-core $AXE_VERSION (npm)"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && npm pack --silent "axe-core@$AXE_VERSION" >/dev/null)
	mkdir -p "$(dirname "$axe")"
	tar -xzf "$tmp/axe-core-$AXE_VERSION.tgz" -C "$tmp"
	cp "$tmp/package/axe.min.js" "$tmp/package/LICENSE" "$(dirname "$axe")/"
fi

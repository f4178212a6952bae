#!/usr/bin/env bash
# Builds the production Temporal server and its SQL schema tool from the Go module proxy, pinned,
# into .tools/temporal-server/<version>/ (bin/temporal-server, bin/temporal-sql-tool;
# the SQL schemas are embedded in the tool).
# A build is also kept in the user's cache (${XDG_CACHE_HOME:-~/.cache}/weft/temporal-server/,
# like Go's own build cache next to it): another checkout on the machine (a fresh clone, CI) links
# it instead of spending a minute of CPU on linking the same 270 MB again.
# Used by `weft up --temporal cluster` and the cluster test run; the dev-server path needs none of it.
# Exit 3 (and one line) when no Go toolchain is available: the caller decides whether that is fatal.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${TEMPORAL_SERVER_VERSION:-1.32.0}"
dest="$root/.tools/temporal-server/$version"
if [ -x "$dest/bin/temporal-server" ] && [ -x "$dest/bin/temporal-sql-tool" ]; then
  exit 0
fi
# --check: only say (by the exit status) whether the binaries are there.
if [ "${1:-}" = "--check" ]; then exit 1; fi
cache="${XDG_CACHE_HOME:-$HOME/.cache}/weft/temporal-server/$version-$(uname -s)-$(uname -m)"
if [ -x "$cache/bin/temporal-server" ] && [ -x "$cache/bin/temporal-sql-tool" ]; then
  rm -rf "$dest.partial" && mkdir -p "$dest.partial/bin"
  for bin in temporal-server temporal-sql-tool; do
    ln "$cache/bin/$bin" "$dest.partial/bin/$bin" 2>/dev/null || cp "$cache/bin/$bin" "$dest.partial/bin/$bin"
  done
  rm -rf "$dest" && mv "$dest.partial" "$dest"
  echo "setup: temporal-server $version from the build cache ($cache)" >&2
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "temporal-server $version: no Go toolchain on PATH to build it (install Go, or set TEMPORAL_SERVER_BIN and TEMPORAL_SQL_TOOL)" >&2
  exit 3
fi
tmp="$dest.partial"
rm -rf "$tmp" && mkdir -p "$tmp/bin"
echo "setup: building temporal-server $version and temporal-sql-tool with $(go version | cut -d' ' -f3) (minutes on a cold Go cache)" >&2
start=$(date +%s)
GOBIN="$tmp/bin" GOFLAGS=-buildvcs=false go install \
  "go.temporal.io/server/cmd/server@v$version" "go.temporal.io/server/cmd/tools/sql@v$version" >&2
mv "$tmp/bin/server" "$tmp/bin/temporal-server"
mv "$tmp/bin/sql" "$tmp/bin/temporal-sql-tool"
rm -rf "$dest" && mv "$tmp" "$dest"
# Into the cache too, whole or not at all (a copy first, then one rename); a failure only costs the
# next checkout a build.
if mkdir -p "$(dirname "$cache")" 2>/dev/null && cp -r "$dest" "$cache.partial.$$" 2>/dev/null; then
  rm -rf "$cache" && mv "$cache.partial.$$" "$cache" || rm -rf "$cache.partial.$$"
fi
echo "setup: temporal-server $version built in $(( $(date +%s) - start )) s" >&2

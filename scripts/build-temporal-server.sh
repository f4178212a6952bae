#!/usr/bin/env bash
# Builds the production Temporal server and its SQL schema tool from the Go module proxy, pinned,
# into .tools/temporal-server/<version>/ (bin/temporal-server, bin/temporal-sql-tool;
# the SQL schemas are embedded in the tool).
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
echo "setup: temporal-server $version built in $(( $(date +%s) - start )) s" >&2

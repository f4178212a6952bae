# Sourced by ./weft before anything else: makes a supported Node (24 LTS) the `node` on PATH.
# Node 20 reached end of life on 2026-04-30. When the machine's node is older than 24, a pinned
# Node 24 is installed from the npm registry (the node-linux-<arch> packages ship the official
# binary) into .tools/node-<version>/ and put first on PATH for this process and its children;
# nothing global changes. WEFT_NODE_VERSION pins another 24.x for a try-out.
WEFT_NODE_VERSION="${WEFT_NODE_VERSION:-24.21.0}"
weft_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if ! command -v node >/dev/null 2>&1; then
  echo "weft needs Node 20 or newer on PATH to bootstrap (it then installs Node $WEFT_NODE_VERSION into .tools/)" >&2
  exit 1
fi
if [ "$(weft_node_major)" -lt 24 ]; then
  case "$(uname -m)" in
    x86_64) weft_node_arch=x64 ;;
    aarch64 | arm64) weft_node_arch=arm64 ;;
    *) echo "weft: no Node 24 package for $(uname -m); install Node 24 yourself" >&2; exit 1 ;;
  esac
  weft_node_dir="$root/.tools/node-$WEFT_NODE_VERSION"
  weft_node_bin="$weft_node_dir/node_modules/node-linux-$weft_node_arch/bin"
  if [ ! -x "$weft_node_bin/node" ]; then
    echo "setup: installing Node $WEFT_NODE_VERSION (node-linux-$weft_node_arch from the npm registry) into .tools/" >&2
    npm install --silent --no-audit --no-fund --prefix "$weft_node_dir.partial" \
      "node-linux-$weft_node_arch@$WEFT_NODE_VERSION" >&2
    rm -rf "$weft_node_dir" && mv "$weft_node_dir.partial" "$weft_node_dir"
  fi
  export PATH="$weft_node_bin:$PATH"
fi

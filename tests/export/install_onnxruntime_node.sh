#!/bin/sh
# CTest fixture of the ONNX export tests: installs onnxruntime-node 1.20.1 from the npm registry into $1 once
# (later runs find it there). 1.20.1 carries its Linux binaries in the package, so --ignore-scripts installs a
# working runtime without the download newer versions attempt at install time.
set -eu
dir=$1
version=1.20.1
package="$dir/node_modules/onnxruntime-node/package.json"
if [ -f "$package" ] && grep -q "\"version\": \"$version\"" "$package"; then
  echo "onnxruntime-node $version is installed in $dir"
  exit 0
fi
command -v node >/dev/null || { echo "node is missing: install Debian's nodejs (packaging/bootstrap.sh lists it)" >&2; exit 1; }
command -v npm >/dev/null || { echo "npm is missing: install Debian's npm (packaging/bootstrap.sh lists it)" >&2; exit 1; }
mkdir -p "$dir"
npm install --prefix "$dir" --ignore-scripts --no-audit --no-fund --no-save "onnxruntime-node@$version"
grep -q "\"version\": \"$version\"" "$package"

#!/usr/bin/env bash
# build.sh [OUT] — build the console into OUT (default dist): the compiled
# ES modules (tsc, strict), the page and its stylesheet, and the vendored
# Mermaid with its licence, copied from the locked npm install. Run after
# `npm ci --ignore-scripts`. The output depends only on the sources and the
# locked versions, so check.sh can rebuild it and compare with the
# committed web/dist.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
out="${1:-dist}"
rm -rf "$out"
mkdir -p "$out/js" "$out/vendor"
node_modules/.bin/tsc -p tsconfig.json --outDir "$out/js"
cp src/index.html src/console.css src/favicon.svg "$out/"
cp node_modules/mermaid/dist/mermaid.min.js "$out/vendor/mermaid.min.js"
cp node_modules/mermaid/LICENSE "$out/vendor/mermaid.LICENSE.txt"

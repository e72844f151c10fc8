#!/usr/bin/env bash
# build.sh [OUT] — build the console into OUT (default dist): the compiled
# ES modules (tsc, strict), the page and its stylesheet, the vendored
# Mermaid with its licence, copied from the locked npm install, and the
# studio's editor, CodeMirror 6, bundled from the locked npm packages by
# esbuild (vendor/codemirror.d.ts lists what it takes) into one minified ES
# module with its packages' licences. Run after `npm ci --ignore-scripts`
# (esbuild's binary is its locked optional package; nothing is downloaded).
# The output depends only on the sources and the locked versions, so
# check.sh can rebuild it and compare with the committed web/dist.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
out="${1:-dist}"
rm -rf "$out"
mkdir -p "$out/js" "$out/vendor"
node_modules/.bin/tsc -p tsconfig.json --outDir "$out/js"
cp src/index.html src/console.css src/favicon.svg "$out/"
cp node_modules/mermaid/dist/mermaid.min.js "$out/vendor/mermaid.min.js"
cp node_modules/mermaid/LICENSE "$out/vendor/mermaid.LICENSE.txt"

# The bundle's metafile names the packages it took code from; their
# licences go beside it, in a fixed (sorted) order.
meta="$(mktemp)"
trap 'rm -f "$meta"' EXIT
node_modules/.bin/esbuild vendor/codemirror.d.ts --bundle --format=esm --target=es2022 --minify \
	--legal-comments=none --charset=utf8 --log-level=warning --metafile="$meta" --outfile="$out/vendor/codemirror.js"
node -e '
const fs = require("fs");
const meta = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
const pkgs = new Set();
for (const input of Object.keys(meta.inputs)) {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (m) pkgs.add(m[1]);
}
const parts = [...pkgs].sort().map((p) => {
  const version = JSON.parse(fs.readFileSync(`node_modules/${p}/package.json`, "utf8")).version;
  return `${p} ${version}\n\n${fs.readFileSync(`node_modules/${p}/LICENSE`, "utf8").trim()}\n`;
});
fs.writeFileSync(process.argv[2], parts.join("\n" + "-".repeat(72) + "\n\n"));
' "$meta" "$out/vendor/codemirror.LICENSE.txt"

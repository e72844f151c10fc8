#!/usr/bin/env bash
# check.sh — the console's checks in `make test`: install the locked npm
# packages (npm ci; install scripts off, none is needed), rebuild the
# console into a temporary folder and fail if it differs from the committed
# web/dist (so the embedded assets always match their sources and the
# locked Mermaid), type-check and run the unit tests of the console's logic
# (node --test), then the end-to-end browser tests (e2e/run.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "web: the console's checks need Node.js and npm (make run does not)" >&2
	exit 1
fi
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error

fresh="$(mktemp -d)"
trap 'rm -rf "$fresh"' EXIT
./build.sh "$fresh/dist"
if ! diff -r dist "$fresh/dist" >/dev/null; then
	diff -r dist "$fresh/dist" | head -n 20 >&2 || true
	echo "web: web/dist does not match its sources; run 'make web' and commit web/dist" >&2
	exit 1
fi

rm -rf .build
node_modules/.bin/tsc -p tsconfig.test.json
node --test .build/test/

e2e/run.sh

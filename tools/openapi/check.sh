#!/usr/bin/env bash
# check.sh — the OpenAPI checks in `make test`: install the locked npm
# packages (npm ci; install scripts off, none is needed); lint both
# committed documents with Redocly's recommended rules and Spectral's
# spectral:oas, failing on any error or warning; regenerate the clients and
# the vendored reference page into a temporary folder and fail if they
# differ from the committed ones; compile the TypeScript client and its live
# check under --strict; then run the tests that need Node.js and chromium
# (-tags nodetools): the TypeScript client against a live server and the
# reference page in headless chromium.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
root="$(cd ../.. && pwd)"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "openapi: these checks need Node.js and npm (make run does not)" >&2
	exit 1
fi
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error

for doc in "$root/api/openapi.json" "$root/api/openapi-3.0.json"; do
	node_modules/.bin/redocly lint --config redocly.yaml --max-problems 50 "$doc"
	node_modules/.bin/spectral lint --ruleset .spectral.yaml --fail-severity warn "$doc"
done

fresh="$(mktemp -d)"
trap 'rm -rf "$fresh"' EXIT
./gen-clients.sh "$fresh/go" "$fresh/ts"
./vendor-reference.sh "$fresh/reference"
stale=0
for pair in "$fresh/go/client.gen.go:$root/clients/go/client.gen.go" "$fresh/ts/schema.d.ts:$root/clients/ts/src/schema.d.ts" \
	"$fresh/reference/redoc.standalone.js:$root/api/openapi/reference/redoc.standalone.js"; do
	if ! cmp -s "${pair%%:*}" "${pair#*:}"; then
		echo "openapi: ${pair#*:} is stale; run 'make clients' (or 'make openapi') and commit it" >&2
		stale=1
	fi
done
[[ $stale == 0 ]]

rm -rf build
node_modules/.bin/tsc -p tsconfig.clients.json
(cd "$root" && go test -count=1 -tags nodetools -run 'TestTypeScriptClientAgainstALiveServer|TestReferencePageRendersOffline' ./clients/go/ ./api/routes/)

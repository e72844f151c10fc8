#!/usr/bin/env bash
# check.sh — the OpenAPI checks in `make test`: install the locked npm
# packages (npm ci; install scripts off, none is needed); lint both
# committed documents with Redocly's recommended rules and Spectral's
# spectral:oas, failing on any error or warning; regenerate the clients and
# the vendored reference page into a temporary folder and fail if they
# differ from the committed ones; build the TypeScript client as its users
# get it (npm ci, npm run build and npm pack in clients/ts) and install the
# tarball into a fresh consumer project (consumer/, copied to build/) that
# compiles its live check under --strict; then run the tests that need
# Node.js and chromium (-tags nodetools): the packed TypeScript client
# against a live server and the reference page in headless chromium. The Go
# client's clean-module test runs in make test's go test.
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
mkdir -p build
cp -r consumer build/consumer
tarball="$(cd "$root/clients/ts" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2 &&
	npm run --silent build >&2 && npm pack --silent --pack-destination "$PWD/../../tools/openapi/build/consumer")"
(cd build/consumer && npm install --ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error "./$tarball" &&
	node_modules/.bin/tsc -p tsconfig.json)
(cd "$root" && go test -count=1 -tags nodetools -run 'TestTypeScriptClientAgainstALiveServer|TestReferencePageRendersOffline' ./clients/livetest/ ./api/routes/)

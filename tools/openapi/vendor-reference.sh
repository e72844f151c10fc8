#!/usr/bin/env bash
# vendor-reference.sh OUT — copy the reference page's renderer (Redoc's
# standalone bundle and its licences) from the locked npm install into OUT
# (api/openapi/reference by `make openapi`; a temporary folder by check.sh, which
# compares). The bundle's one remote asset, the "API docs by Redocly" logo
# it would fetch from cdn.redoc.ly, is replaced by an empty inline SVG, so
# the page asks nothing of any other host.
set -euo pipefail
out="$(realpath -m "$1")"
cd "$(dirname "${BASH_SOURCE[0]}")"
mkdir -p "$out"
empty='data:image/svg+xml,%3Csvg%20xmlns=%22http://www.w3.org/2000/svg%22/%3E'
sed "s#https://cdn.redoc.ly/redoc/logo-mini.svg#${empty}#g" node_modules/redoc/bundles/redoc.standalone.js >"$out/redoc.standalone.js"
if grep -q 'cdn\.redoc\.ly' "$out/redoc.standalone.js"; then
	echo "vendor-reference: the Redoc bundle still names cdn.redoc.ly" >&2
	exit 1
fi
cp node_modules/redoc/bundles/redoc.standalone.js.LICENSE.txt "$out/redoc.standalone.js.LICENSE.txt"
cp node_modules/redoc/LICENSE "$out/REDOC-LICENSE"

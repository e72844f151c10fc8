#!/usr/bin/env bash
# gen-clients.sh GO_OUT TS_OUT — generate the API clients from the
# committed OpenAPI documents: the Go client (oapi-codegen v2.8.2 with its
# default options, from api/openapi-3.0.json: it reads 3.0) into
# GO_OUT/client.gen.go, and the TypeScript types (openapi-typescript, from
# api/openapi.json) into TS_OUT/schema.d.ts (the package's build copies
# it into dist/ beside index.d.ts, which imports it). `make clients` writes
# them into clients/go and clients/ts/src; check.sh into a temporary
# folder, then compares. Needs the locked npm packages (npm ci).
set -euo pipefail
go_out="$(realpath -m "$1")"
ts_out="$(realpath -m "$2")"
cd "$(dirname "${BASH_SOURCE[0]}")"
root="$(cd ../.. && pwd)"
mkdir -p "$go_out" "$ts_out"
(cd "$go_out" && go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 \
	-config "$root/clients/go/oapi-codegen.yaml" -o "$go_out/client.gen.go" "$root/api/openapi-3.0.json")
node_modules/.bin/openapi-typescript "$root/api/openapi.json" -o "$ts_out/schema.d.ts" --silent

#!/usr/bin/env bash
# run.sh — what `make run` does after building bin/eligo: bring up the local
# database (unless DATABASE_URL is set), migrate, seed the demo tenant with a
# fresh all-scope key (a new key on every run; earlier demo keys stay valid
# until revoked with `eligo keys revoke`), then serve.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ -z "${DATABASE_URL:-}" ]]; then
	DATABASE_URL="$(scripts/devdb.sh url)"
fi
export DATABASE_URL

bin/eligo migrate
key="$(bin/eligo keys create --tenant demo --name demo --tier internal --scopes all)"

# Publishing the casebank rulesets as public demo data comes here once the
# publish path exists (a later issue), so that an anonymous /decide works at
# once.

echo "demo API key: $key"
exec bin/eligo serve

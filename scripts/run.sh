#!/usr/bin/env bash
# run.sh — what `make run` does after building bin/eligo: bring up the local
# database (unless DATABASE_URL is set), migrate, seed the demo tenant with a
# fresh all-scope key (a new key on every run; earlier demo keys stay valid
# until revoked with `eligo keys revoke`), publish the casebank as public demo
# rulesets and rulebooks, then serve.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ -z "${DATABASE_URL:-}" ]]; then
	DATABASE_URL="$(scripts/devdb.sh url)"
fi
export DATABASE_URL

bin/eligo migrate
key="$(bin/eligo keys create --tenant demo --name demo --tier internal --scopes all)"

# Publish every casebank folder as a public demo ruleset, demo/<folder>, so
# that an anonymous /decide works at once. Rerunning is harmless: unchanged
# content reuses its cut (same ruleset_id and version); changed content
# becomes the slug's next version.
for dir in casebank/*/; do
	name="$(basename "$dir")"
	[[ -f "${dir}rulebook.json" ]] && continue
	bin/eligo publish "$dir$name.rules" --tenant demo --cases "${dir}cases.json" --public --slug "demo/$name"
done

# Then every casebank rulebook, over the sections just published, as a
# public active rulebook demo/<folder> with a release.
for dir in casebank/*/; do
	[[ -f "${dir}rulebook.json" ]] || continue
	bin/eligo rulebook publish "$dir" --tenant demo --public --slug "demo/$(basename "$dir")"
done

echo "demo API key: $key"
exec bin/eligo serve

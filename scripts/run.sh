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
# that an anonymous /decide works at once. A folder <base>-<suffix> whose
# .rules declares the same `ruleset "<slug>"` header as the folder <base> is
# another effective period of that ruleset (snap-income-fy2027 beside
# snap-income): it is published under demo/<base> too, and the periods of
# one slug are published in the order of their `effective` dates, the
# earliest first, so the latest period is the slug's newest version.
# Rerunning is harmless: content a slug already holds reuses its cut (same
# ruleset_id and version); changed content becomes the slug's next version.
header() { grep -m1 '^ruleset ' "$1" || true; }
effective_from() { sed -n 's/^effective \([0-9-]*\).*/\1/p' "$1" | head -n1; }
rulesets=()
for dir in casebank/*/; do
	name="$(basename "$dir")"
	[[ -f "${dir}rulebook.json" ]] && continue
	base="$name"
	for other in casebank/*/; do
		o="$(basename "$other")"
		if [[ "$name" == "$o"-* && ${#o} -lt ${#base} && -f "$other$o.rules" && -n "$(header "$dir$name.rules")" &&
			"$(header "$other$o.rules")" == "$(header "$dir$name.rules")" ]]; then
			base="$o"
		fi
	done
	from="$(effective_from "$dir$name.rules")"
	rulesets+=("$base ${from:-0000-00-00} $name")
done
mapfile -t rulesets < <(printf '%s\n' "${rulesets[@]}" | LC_ALL=C sort -k1,1 -k2,2)
# What each publish says goes to a log, so that the key printed below is not
# lost among a hundred lines; a publish that fails still stops make run.
mkdir -p .data
publog=.data/make-run-publish.log
: >"$publog"
# A test fixture (a folder whose rules declare a `ruleset "test/..."`
# header, such as polarity-conservative) is published for the demo team
# only: the public catalogue is for applicants, and a fixture is no
# programme anyone applies to.
for entry in "${rulesets[@]}"; do
	read -r base _ name <<<"$entry"
	public=(--public)
	[[ "$(header "casebank/$name/$name.rules")" == 'ruleset "test/'* ]] && public=()
	bin/eligo publish "casebank/$name/$name.rules" --tenant demo --cases "casebank/$name/cases.json" "${public[@]}" --slug "demo/$base" >>"$publog" 2>&1 ||
		{ cat "$publog" >&2; exit 1; }
done

# Then every casebank rulebook, over the sections just published, as a
# public active rulebook demo/<folder> with a release.
books=0
for dir in casebank/*/; do
	[[ -f "${dir}rulebook.json" ]] || continue
	bin/eligo rulebook publish "$dir" --tenant demo --public --slug "demo/$(basename "$dir")" >>"$publog" 2>&1 ||
		{ cat "$publog" >&2; exit 1; }
	books=$((books + 1))
done

addr="${ELIGO_ADDR:-127.0.0.1:8080}"
cat <<EOF

Published ${#rulesets[@]} casebank rulesets (the test fixtures for the demo team only) and $books rulebooks as public demo/... (what each publish said: $publog).

  demo API key:  $key
  console:       http://$addr/
  API:           http://$addr/api/v1/public

Another address: ELIGO_ADDR=127.0.0.1:9090 make run

EOF
exec bin/eligo serve

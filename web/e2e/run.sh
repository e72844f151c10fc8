#!/usr/bin/env bash
# run.sh — the console's end-to-end tests: build bin/eligo's twin into a
# temporary folder, create a throwaway database on the local cluster (or
# the one DATABASE_URL names), migrate it, publish the casebank rulesets the
# tests use as public demo rulesets (as scripts/run.sh does), start
# `eligo serve` on a free loopback port (its generation calling the
# scripted model of e2e/model.mjs, whose address the tests get in
# ELIGO_MODEL_URL), and run the browser tests
# (*.test.mjs: playwright-core driving Debian's chromium) against it, or
# only the spec files given (run.sh e2e/session.test.mjs). A key for the
# sign-in and studio tests, of a tenant of their own with the projects,
# rulesets and decide scopes, is issued and passed in ELIGO_KEY (its tenant in
# ELIGO_TENANT); the interview tests' key, of a tenant with a private
# ruleset and rulebook, in ELIGO_INTERVIEW_KEY (ELIGO_INTERVIEW_TENANT);
# the markup test's, of a tenant whose public ruleset's words are markup,
# in ELIGO_MARKUP_KEY (ELIGO_MARKUP_TENANT).
# Screenshots and the accessibility reports are kept in web/e2e/artifacts/.
# The server is stopped and the database dropped however the run ends.
set -euo pipefail

web="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "$web/.." && pwd)"
cd "$root"

url="${DATABASE_URL:-$(scripts/devdb.sh url)}"
db="eligo_console_e2e_$$_${RANDOM}"
base="${url%%\?*}"
query="${url#"$base"}"
dburl="${base%/*}/$db$query"

tmp="$(mktemp -d)"
server=""
model=""
cleanup() {
	if [[ -n "$model" ]]; then
		kill "$model" 2>/dev/null || true
		wait "$model" 2>/dev/null || true
	fi
	if [[ -n "$server" ]]; then
		kill "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
	fi
	psql "$url" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/eligo" ./cmd/eligo
psql "$url" -qc "CREATE DATABASE $db"
export DATABASE_URL="$dburl"
"$tmp/eligo" migrate >/dev/null
for name in us-fmla-employee ca-voter-registration snap-income uk-child-benefit us-snap-eligibility; do
	"$tmp/eligo" publish "casebank/$name/$name.rules" --tenant demo --cases "casebank/$name/cases.json" \
		--public --slug "demo/$name" >/dev/null
done
# One programme over two periods under one address (interview.test.mjs):
# SNAP's FY2026 rules, then FY2027's as the address's newest version, which
# keeps the first one's public visibility.
"$tmp/eligo" publish casebank/snap-income/snap-income.rules --tenant demo --cases casebank/snap-income/cases.json \
	--public --slug demo/food-income-by-year >/dev/null
"$tmp/eligo" publish casebank/snap-income-fy2027/snap-income-fy2027.rules --tenant demo --cases casebank/snap-income-fy2027/cases.json \
	--slug demo/food-income-by-year >/dev/null

# Rules that work out figures before they compare (console.test.mjs: named
# values and a table in the graph).
"$tmp/eligo" publish web/e2e/testdata/values/values.rules --tenant demo --public --slug demo/bill-help >/dev/null
# A household's help: a list of members, asked person by person.
"$tmp/eligo" publish web/e2e/testdata/household/household.rules --tenant demo --public --slug demo/household-help >/dev/null

# A key for the sign-in and studio tests (session.test.mjs, studio.test.mjs);
# it also decides, so that the studio test's decisions under its own
# ruleset are logged and make a file of applicants.
tenant="e2e-studio"
# newKey tenant name scopes prints a new pro-tier key of tenant.
newKey() {
	"$tmp/eligo" keys create --tenant "$1" --tier pro --name "$2" --scopes "$3" 2>"$tmp/keys.log" || {
		cat "$tmp/keys.log" >&2
		return 1
	}
}
key="$(newKey "$tenant" "console e2e" projects:read,projects:write,rulesets:read,rulesets:write,decide)"

# The interview tests' own (interview.test.mjs): a public rulebook for
# the catalogue, over public sections; and a tenant with a private ruleset
# and a private rulebook over sections of its own, with a key to sign in
# with that may decide and read them.
eitc=(us-eitc-relationship us-eitc-age us-eitc-residency us-eitc-joint-return)
itenant="e2e-interview"
for name in "${eitc[@]}"; do
	"$tmp/eligo" publish "casebank/$name/$name.rules" --tenant demo --cases "casebank/$name/cases.json" --public --slug "demo/$name" >/dev/null
	"$tmp/eligo" publish "casebank/$name/$name.rules" --tenant "$itenant" --cases "casebank/$name/cases.json" --slug "$itenant/$name" >/dev/null
done
"$tmp/eligo" rulebook publish casebank/us-eitc-qualifying-child --tenant demo --public --slug demo/us-eitc-qualifying-child >/dev/null
"$tmp/eligo" rulebook publish casebank/us-eitc-qualifying-child --tenant "$itenant" --slug "$itenant/eitc-qualifying-child" >/dev/null
"$tmp/eligo" publish casebank/us-fmla-employee/us-fmla-employee.rules --tenant "$itenant" --cases casebank/us-fmla-employee/cases.json \
	--slug "$itenant/fmla-private" >/dev/null
ikey="$(newKey "$itenant" "interview e2e" decide,rulesets:read,rulesets:explain,rulebooks:read)"

# The scripted model generation calls (generate.test.mjs scripts its
# answers): a roomy default model and one whose budget no prompt fits.
node "$web/e2e/model.mjs" >"$tmp/model.out" 2>"$tmp/model.log" &
model=$!
model_origin=""
for _ in $(seq 1 100); do
	model_origin="$(sed -n 's|^model serving on \(http://[^/]*\)$|\1|p' "$tmp/model.out")"
	[[ -n "$model_origin" ]] && break
	if ! kill -0 "$model" 2>/dev/null; then
		cat "$tmp/model.log" >&2
		echo "e2e: the scripted model exited before serving" >&2
		exit 1
	fi
	sleep 0.1
done
if [[ -z "$model_origin" ]]; then
	echo "e2e: the scripted model did not start within 10 s" >&2
	exit 1
fi

# The rulebooks test (rulebooks.test.mjs): a tenant of its own with two
# published sections, SNAP income (the conservative casebank ruleset) and
# FMLA, and an older cut of the SNAP income section, the casebank's
# non-conservative counterpart under that section id, which the
# presence-polarity gate refuses to promote. It is published first, so the
# conservative cut is the section's newest and becomes its live cut; the
# same for a renamed FMLA cut, which promotes.
rbtenant="e2e-rulebooks"
sed 's/^section snap_net_income_one_person$/section snap_income_one_person/' \
	casebank/polarity-nonconservative/polarity-nonconservative.rules >"$tmp/lenient.rules"
"$tmp/eligo" publish "$tmp/lenient.rules" --tenant "$rbtenant" --cases casebank/polarity-nonconservative/cases.json \
	--sources casebank/polarity-nonconservative/source.txt --slug e2e-rulebooks/snap-income-lenient >/dev/null
"$tmp/eligo" publish casebank/polarity-conservative/polarity-conservative.rules --tenant "$rbtenant" \
	--cases casebank/polarity-conservative/cases.json --slug e2e-rulebooks/snap-income >/dev/null
# An older cut of FMLA, renamed, is the one the test promotes successfully.
sed 's/^name "FMLA employee eligibility"$/name "FMLA employee eligibility (plain wording)"/' \
	casebank/us-fmla-employee/us-fmla-employee.rules >"$tmp/fmla-plain.rules"
"$tmp/eligo" publish "$tmp/fmla-plain.rules" --tenant "$rbtenant" --cases casebank/us-fmla-employee/cases.json \
	--sources casebank/us-fmla-employee/source.txt --slug e2e-rulebooks/fmla-employee-plain >/dev/null
"$tmp/eligo" publish casebank/us-fmla-employee/us-fmla-employee.rules --tenant "$rbtenant" \
	--cases casebank/us-fmla-employee/cases.json --slug e2e-rulebooks/fmla-employee >/dev/null
# The key also decides, for the interview on the rulebook it composes, and
# keeps a project, whose file of applicants a promotion's impact runs on.
rbkey="$(newKey "$rbtenant" "rulebooks e2e" rulesets:read,rulesets:explain,rulebooks:read,rulebooks:write,decide,projects:read,projects:write)"
export ELIGO_RULEBOOKS_KEY="$rbkey"

# The markup test's (markup.test.mjs): a public ruleset whose every word
# for people is markup or Mermaid syntax (e2e/testdata/markup), and a key
# of its tenant for the studio's and the rulebooks' screens over the same
# words.
mtenant="e2e-markup"
"$tmp/eligo" publish web/e2e/testdata/markup/markup.rules --tenant "$mtenant" --cases web/e2e/testdata/markup/cases.json \
	--sources web/e2e/testdata/markup/source.txt --public --slug e2e-markup/hostile >/dev/null
mkey="$(newKey "$mtenant" "markup e2e" projects:read,projects:write,rulesets:read,rulesets:write,rulesets:explain,rulebooks:read,rulebooks:write,decide)"
export ELIGO_MARKUP_KEY="$mkey" ELIGO_MARKUP_TENANT="$mtenant"

# Generous anonymous budgets: the tests make a few hundred anonymous calls.
# The decision spool is the run's own: the default (.data/spool) belongs to
# `make run` and its database.
"$tmp/eligo" serve --addr 127.0.0.1:0 --budgets anonymous.decide=100000,anonymous.rulesets=100000 \
	--decision-spool "$tmp/spool" --model-base-url "$model_origin/v1" --models "scripted:131072,scripted-tiny:1024" \
	>"$tmp/serve.out" 2>"$tmp/serve.log" &
server=$!
origin=""
for _ in $(seq 1 300); do
	origin="$(sed -n 's|^eligo serving on \(http://[^/]*\)/.*|\1|p' "$tmp/serve.out")"
	[[ -n "$origin" ]] && break
	if ! kill -0 "$server" 2>/dev/null; then
		cat "$tmp/serve.log" >&2
		echo "e2e: eligo serve exited before serving" >&2
		exit 1
	fi
	sleep 0.2
done
if [[ -z "$origin" ]]; then
	echo "e2e: eligo serve did not start within 60 s" >&2
	exit 1
fi

cd "$web"
specs=("$@")
[[ ${#specs[@]} -gt 0 ]] || specs=(e2e/)
ELIGO_URL="$origin" ELIGO_KEY="$key" ELIGO_TENANT="$tenant" ELIGO_INTERVIEW_KEY="$ikey" ELIGO_INTERVIEW_TENANT="$itenant" ELIGO_MODEL_URL="$model_origin" node --test "${specs[@]}"

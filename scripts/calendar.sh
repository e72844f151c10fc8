#!/usr/bin/env bash
# calendar.sh — the calendar guard in `make test`: run the suites whose
# answers depend on the date with the clock (ELIGO_TODAY, read by the
# server, the CLI and the test fixtures) set to every day where an answer
# could change: today, the first and last day of every casebank period and
# the day after it ends, and two years ahead. A test that decides "as of
# today" without naming the day, or a period that ends, then fails here
# long before the calendar reaches it.
#
#   scripts/calendar.sh          the suites, on the days below

#   scripts/calendar.sh --days   only print the days
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# days prints the days, sorted and distinct.
days() {
	{
		date -u +%F
		date -u -d '+2 years' +%F
		sed -n 's/^effective \([0-9-]\{10\}\)\( until \([0-9-]\{10\}\)\)\?.*/\1 \3/p' casebank/*/*.rules |
			while read -r from until; do
				echo "$from"
				if [[ -n "$until" ]]; then
					echo "$until"
					date -u -d "$until + 1 day" +%F
				fi
			done
	} | sort -u
}

if [[ "${1:-}" == "--days" ]]; then
	days
	exit 0
fi

# The date-sensitive suites. The quick ones (the casebank and its periods,
# cuts in force, composed periods, the CLI's casebank commands) run on
# every day. Those that serve the API (decision dates,
# explain-failure outside a period, the recorded examples) run two years
# ahead and on the day after the last period ends; TestTodayIsTheClocksDay,
# in the ordinary run, turns one server's clock through every day itself.
every=(casebank catalog rulebook cmd/eligo)
every_run='^(TestCasebank|TestCasebankPeriods|TestRulesetOnResolvesTheCutInForce|TestCompose.*|TestTestCasebank|TestRulebook.*Casebank|TestCheckPeriods)$'
served=(api/decide api/rulesets api/routes)
served_run='^(TestDecideByDecisionDate|TestDecideCasebankOutcomes|TestExplainFailureOutsidePeriod|TestRecordedExamples)$'
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
for s in "${every[@]}" "${served[@]}"; do
	go test -c -o "$bin/${s//\//_}.test" "./$s"
done

# run SUITE DAY PATTERN runs one suite's compiled tests with the clock on DAY.
run() {
	if ! (cd "$1" && ELIGO_TODAY="$2" "$bin/${1//\//_}.test" -test.run "$3" -test.count=1 >"$bin/out" 2>&1); then
		cat "$bin/out" >&2
		echo "calendar: ./$1 fails with the clock on $2 (ELIGO_TODAY=$2)" >&2
		exit 1
	fi
}

mapfile -t all < <(days)
echo "calendar: ${#all[@]} days from ${all[0]} to ${all[-1]}"
for day in "${all[@]}"; do
	for s in "${every[@]}"; do
		run "$s" "$day" "$every_run"
	done
done
ahead="$(date -u -d '+2 years' +%F)"
for day in "$ahead" "${all[-1]}"; do
	for s in "${served[@]}"; do
		run "$s" "$day" "$served_run"
	done
done

# The console's browser tests, two years ahead.
ELIGO_TODAY="$ahead" web/e2e/run.sh
echo "calendar: every suite holds on every day"

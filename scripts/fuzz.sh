#!/usr/bin/env bash
# fuzz.sh [seconds] — run every fuzz target in the repository briefly.
# Targets are found by grepping `func FuzzXxx` in *_test.go files, so new
# targets are picked up without editing anything. Each runs alone (go test
# allows one -fuzz target per run) for FUZZTIME (default 5s).
#
# Go's fuzzing coordinator can report a bare "context deadline exceeded"
# when -fuzztime expires while a worker is mid-call on a loaded machine
# (golang/go#75804): no input failed and nothing is written to testdata.
# Such a run is retried once; any other failure, or the same one twice,
# fails the script.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
fuzztime="${1:-${FUZZTIME:-5s}}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

# deadline_flake: the failed run in $log is the coordinator's deadline race,
# not a finding (a finding writes a failing input or reports a panic).
deadline_flake() {
	grep -q 'context deadline exceeded' "$log" &&
		! grep -qE 'Failing input written|panic:|fuzz: minimizing' "$log"
}

run() { # run <pkg> <name>
	go test -run='^$' -fuzz="^$2\$" -fuzztime="$fuzztime" "$1" 2>&1 | tee "$log"
}

found=0
while IFS=: read -r file line; do
	name="$(sed -E 's/^func (Fuzz[A-Za-z0-9_]*).*/\1/' <<<"$line")"
	pkg="./$(dirname "$file")"
	found=$((found + 1))
	echo "fuzz: $pkg $name ($fuzztime)"
	if ! run "$pkg" "$name"; then
		deadline_flake || exit 1
		echo "fuzz: $name stopped on the fuzzing coordinator's deadline race with no failing input; running it again"
		run "$pkg" "$name"
	fi
done < <(grep -rE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(' . | grep -v '^./.data/' | sed -E 's/^\.\///' | sort)
echo "fuzz: $found target(s) run"

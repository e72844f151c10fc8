#!/usr/bin/env bash
# fuzz.sh [seconds] — run every fuzz target in the repository briefly.
# Targets are found by grepping `func FuzzXxx` in *_test.go files, so new
# targets are picked up without editing anything. Each runs alone (go test
# allows one -fuzz target per run) for FUZZTIME (default 5s).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
fuzztime="${1:-${FUZZTIME:-5s}}"

found=0
while IFS=: read -r file line; do
	name="$(sed -E 's/^func (Fuzz[A-Za-z0-9_]*).*/\1/' <<<"$line")"
	pkg="./$(dirname "$file")"
	found=$((found + 1))
	echo "fuzz: $pkg $name ($fuzztime)"
	go test -run='^$' -fuzz="^${name}\$" -fuzztime="$fuzztime" "$pkg"
done < <(grep -rE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(' . | grep -v '^./.data/' | sed -E 's/^\.\///' | sort)
echo "fuzz: $found target(s) run"

#!/usr/bin/env bash
# bodycost.sh — the before-and-after figures of the request-body limits
# (docs/limits.md#json-bodies-before-they-are-decoded): runs
# BenchmarkAttackBodies (api/routes/bodycost_test.go) on another checkout
# of the code, BASE (main, without the limits), and then on this one, one
# after the other, and prints both. The benchmark and the bodies it sends
# (api/apitest/bodies.go) are copied into BASE for the run and removed
# after. BASE skips the 4 MB project body unless
# BASE_BODIES is set to a -bench pattern naming it: without the limits it
# takes the process past 10 GB.
#
#   DATABASE_URL=... scripts/bodycost.sh /path/to/main-checkout
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
base=${1:?usage: scripts/bodycost.sh BASE_CHECKOUT}
bench=api/routes/bodycost_test.go
bodies=api/apitest/bodies.go
pattern='BenchmarkAttackBodies'
base_pattern=${BASE_BODIES:-'BenchmarkAttackBodies/(project_100KB|project_420KB|explain|rulebook)'}
trap 'rm -f "$base/$bench" "$base/$bodies"' EXIT
cp "$bench" "$base/$bench"
cp "$bodies" "$base/$bodies"
run() { (cd "$1" && go test -count=1 -run '^$' -bench "$2" -benchtime 1x ./api/routes/ | grep '^Benchmark'); }
echo "== before: $base ($(git -C "$base" rev-parse --short HEAD))"
run "$base" "$base_pattern"
echo "== after: $(pwd) ($(git rev-parse --short HEAD))"
run . "$pattern"

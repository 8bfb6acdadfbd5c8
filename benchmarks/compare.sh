#!/bin/sh
# Runs the side-by-side benchmarks once and prints kcache/client-go ratios.
# Usage: [BENCH=regexp] [BENCHTIME=3x] [COUNT=1] [OUT=file] benchmarks/compare.sh
# Repeated runs (COUNT>1) are averaged by the ratios tool.
set -eu
cd "$(dirname "$0")/.."
out="${OUT:-$(mktemp)}"
go test -run '^$' -bench "${BENCH:-.}" -benchmem -benchtime="${BENCHTIME:-3x}" -count="${COUNT:-1}" ./benchmarks/ | tee "$out"
echo
go run ./benchmarks/cmd/ratios < "$out"
# tee hides go test's exit status; a failed benchmark prints FAIL.
if grep -q '^FAIL' "$out"; then
	echo "compare.sh: benchmarks failed (see $out)" >&2
	exit 1
fi

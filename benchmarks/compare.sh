#!/bin/sh
# Runs the side-by-side benchmarks once and prints kcache/client-go ratios.
# Usage: [BENCH=regexp] [BENCHTIME=3x] [OUT=file] benchmarks/compare.sh
set -eu
cd "$(dirname "$0")/.."
out="${OUT:-$(mktemp)}"
go test -run '^$' -bench "${BENCH:-.}" -benchmem -benchtime="${BENCHTIME:-3x}" ./benchmarks/ | tee "$out"
echo
go run ./benchmarks/cmd/ratios < "$out"

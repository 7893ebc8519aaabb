#!/usr/bin/env bash
# Short coverage-guided runs of the YAQL fuzz targets (long runs: FUZZING.md).
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${VETRO_FUZZ:-}" ]; then
    echo "fuzz-yaql: skipped (VETRO_FUZZ is unset: no nightly toolchain or cargo-fuzz)"
    exit 0
fi
log=$(mktemp)
for target in yaql_parse yaql_eval; do
    if ! scripts/fuzz.sh "$target" "${VETRO_FUZZ_SECONDS:-30}" >"$log" 2>&1; then
        tail -40 "$log"
        echo "fuzz-yaql: $target failed (crashes are kept in fuzz/artifacts/$target)"
        exit 1
    fi
    grep -E 'stat::number_of_executed_units' "$log" | sed "s/^/$target: /"
done
echo "fuzz-yaql: ok"

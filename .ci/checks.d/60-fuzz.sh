#!/usr/bin/env bash
# A short coverage-guided run of every fuzz target in fuzz/ (long runs: FUZZING.md).
# Bounded: one build, then VETRO_FUZZ_SECONDS (default 10) per target, one at a time.
set -uo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh
if [ -z "${VETRO_FUZZ:-}" ]; then
    skip "VETRO_FUZZ is unset: no nightly toolchain"
fi
seconds=${VETRO_FUZZ_SECONDS:-10}
started=$SECONDS
if ! cargo +nightly fuzz build >/dev/null 2>&1; then
    cargo +nightly fuzz build 2>&1 | tail -40
    echo "fuzz: the targets do not build"
    exit 1
fi
echo "fuzz: targets built in $((SECONDS - started))s"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for target in $(cargo +nightly fuzz list); do
    if ! scripts/fuzz.sh "$target" "$seconds" >"$log" 2>&1; then
        tail -40 "$log"
        echo "fuzz: $target failed (the crashing input is in fuzz/artifacts/$target)"
        exit 1
    fi
    runs=$(sed -nE 's/.*stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -1)
    echo "fuzz: $target: ${runs:-?} executions in ${seconds}s, no crash"
done
echo "fuzz: every target ran; $((SECONDS - started))s in all"

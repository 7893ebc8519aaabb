#!/usr/bin/env bash
# Run one cargo-fuzz target for a while: scripts/fuzz.sh TARGET SECONDS [extra libFuzzer flags]
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
# The corpus lives in fuzz/corpus/TARGET (not committed); it starts from the
# seeds in fuzz/seeds/TARGET, taken from the project's own examples.
# A crash is written to fuzz/artifacts/TARGET/ and the script exits non-zero.
# VETRO_FUZZ_SANITIZER=none runs without AddressSanitizer, several times
# faster: for long runs that look for panics, hangs and memory overruns.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
    echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]" >&2
    echo "targets: $(cargo +nightly fuzz list 2>/dev/null | tr '\n' ' ')" >&2
    exit 2
fi
target=$1 seconds=$2
shift 2
corpus=fuzz/corpus/$target
mkdir -p "$corpus"
if [ -d "fuzz/seeds/$target" ]; then
    cp -n fuzz/seeds/"$target"/* "$corpus"/ 2>/dev/null || true
fi
# The YAQL targets share a dictionary of tokens (big integers among them);
# the JSON one has its own (escapes, numbers at the readers' edges).
dict=()
case $target in
    yaql_*) dict=(-dict=fuzz/dicts/yaql.dict) ;;
    json_*) dict=(-dict=fuzz/dicts/json.dict) ;;
esac
exec cargo +nightly fuzz run -s "${VETRO_FUZZ_SANITIZER:-address}" "$target" "$corpus" -- \
    -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=10 -print_final_stats=1 "${dict[@]}" "$@"

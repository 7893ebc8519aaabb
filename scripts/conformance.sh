#!/usr/bin/env bash
# Run every conformance harness in ../shared/conformance that applies to a part
# vetro implements, print their summary lines, and fail when a pass count drops
# below its floor in conformance/floors.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${VETRO_CONFORMANCE:-../shared/conformance}
if [ ! -d "$shared" ]; then
    echo "conformance: $shared not found, skipping"
    exit 0
fi
cargo build --release --quiet -p vetro-cli   # the same build the checks use
bin="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/release/vetro"
export bin shared
status=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# name | command (run from the project root)
runs=$(grep -vE '^\s*(#|$)' conformance/runs.txt)

while IFS='|' read -r name cmd; do
    name=$(echo "$name" | xargs)
    floor=$(awk -v n="$name" '$1 == n {print $2}' conformance/floors.txt)
    floor=${floor:-0}
    start=$(date +%s)
    set +e
    timeout "${VETRO_HARNESS_TIMEOUT:-420}" bash -c "$cmd" >"$out/$name.log" 2>&1
    set -e
    secs=$(( $(date +%s) - start ))
    line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$out/$name.log" | tail -1 || true)
    passed=$(echo "$line" | sed -nE 's/.*\b([0-9]+) passed.*/\1/p')
    passed=${passed:-0}
    verdict=ok
    if [ "$passed" -lt "$floor" ]; then
        verdict="BELOW FLOOR $floor"
        status=1
        tail -20 "$out/$name.log"
    fi
    printf '%-16s %-40s (%ss) %s\n' "$name" "${line:-no summary line}" "$secs" "$verdict"
done <<<"$runs"
exit $status

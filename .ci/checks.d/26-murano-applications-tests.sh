#!/usr/bin/env bash
# Murano's own application-development library, io.murano.applications, runs
# its own MuranoPL tests under `vetro test`: every test must pass. Skipped when
# ../shared/murano-packages (or $VETRO_MURANO_PACKAGES) is absent.
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh

PKGS="${VETRO_MURANO_PACKAGES:-../shared/murano-packages}"
LIB="$PKGS/meta/io.murano.applications"
if [ ! -d "$LIB" ]; then
    skip "$LIB not found"
fi
started=$(date +%s)
vetro_build
set +e
out=$(timeout 300 "$VETRO" test "$LIB" 2>&1)
rc=$?
set -e
summary=$(grep -E '[0-9]+ passed, [0-9]+ failed' <<<"$out" | tail -1)
echo "murano-applications-tests: ${summary:-no summary}, $(( $(date +%s) - started )) s"
if [ "$rc" -ne 0 ] || ! grep -Eq '[1-9][0-9]* passed, 0 failed' <<<"$summary"; then
    echo "$out" | tail -40
    echo "murano-applications-tests: FAILED (exit $rc)"
    exit 1
fi

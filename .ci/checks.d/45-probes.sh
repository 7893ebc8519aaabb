#!/usr/bin/env bash
# The hostile-input probe campaign (scripts/probes.py): several hundred runs of
# the release binary with bad input on every subcommand, each checked for its
# exit code, time budget, peak memory and error output, and never a crash,
# panic or hang. Bounded: every probe has its own time budget; the whole
# campaign takes about three minutes on two cores after the release build
# (which conformance shares).
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh
vetro_build --release
python3 scripts/probes.py --binary "$VETRO" --jobs 2 --slowest 5

#!/usr/bin/env bash
# The hostile-input probe campaign (scripts/probes.py): several hundred runs of
# the release binary with bad input on every subcommand, each checked for its
# exit code, time budget, peak memory and error output, and never a crash,
# panic or hang. Bounded: every probe has its own time budget; the whole
# campaign takes about three minutes on two cores after the release build
# (which conformance shares).
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -q -p vetro-cli
python3 scripts/probes.py --binary "${CARGO_TARGET_DIR:-target}/release/vetro" --jobs 2 --slowest 5

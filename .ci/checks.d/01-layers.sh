#!/usr/bin/env bash
# No new module import cycle and no new function over 150 lines in any crate.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 scripts/check_layers.py --baseline scripts/layers-baseline.txt

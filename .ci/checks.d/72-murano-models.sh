#!/usr/bin/env bash
# Every murano-apps package with a UI/ui.yaml: its forms answered, its object
# model built with `vetro murano model`, deployed with `vetro run` on the
# simulator; fails when fewer than 26 deploy (VETRO_MURANO_MIN_DEPLOYED). Needs
# ../shared/murano-packages (or VETRO_MURANO_PACKAGES).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="${VETRO_MURANO_PACKAGES:-../shared/murano-packages}"
if [ ! -d "$root/murano-apps" ]; then
    echo "murano-models: skipped ($root/murano-apps not found)"
    exit 0
fi
start=$(date +%s)
cargo build --release -q -p vetro-cli
timeout 900 python3 scripts/murano_models.py target/release/vetro "$root" --min-deployed "${VETRO_MURANO_MIN_DEPLOYED:-26}" --timeout 60
echo "murano-models: $(( $(date +%s) - start ))s"

#!/usr/bin/env bash
# Every murano-apps package with a UI/ui.yaml: its forms answered, its object
# model built with `vetro murano model`, deployed with `vetro run` on the
# simulator; fails when fewer than 26 deploy (VETRO_MURANO_MIN_DEPLOYED). Needs
# ../shared/murano-packages (or VETRO_MURANO_PACKAGES).
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh
root="${VETRO_MURANO_PACKAGES:-../shared/murano-packages}"
if [ ! -d "$root/murano-apps" ]; then
    skip "$root/murano-apps not found"
fi
start=$(date +%s)
vetro_build --release
timeout 900 python3 scripts/murano_models.py "$VETRO" "$root" --min-deployed "${VETRO_MURANO_MIN_DEPLOYED:-26}" --timeout 60
echo "murano-models: $(( $(date +%s) - start ))s"

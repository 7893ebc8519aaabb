#!/usr/bin/env bash
# The real Murano client (python-muranoclient 2.8.0, installed by
# .ci/setup.d/21-muranoclient.sh) against `vetro serve` on a loopback port with
# a fresh SQLite database: catalog, class schemas, categories, environments, sessions, apps,
# deploy, deployments, the deployed model's actions, templates and deletion,
# each step's output checked (crates/vetro-server/tests/client/murano_scenario.py).
# Bounded: every client call times out after 120 s, every wait after 300 s.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${VETRO_MURANO_CLI:-}" ] || [ ! -x "$VETRO_MURANO_CLI" ]; then
    echo "murano-client: skipped (VETRO_MURANO_CLI unset; see .ci/setup.d/21-muranoclient.sh)"
    exit 0
fi

cargo build -q -p vetro-cli
VETRO="${CARGO_TARGET_DIR:-target}/debug/vetro"
PY=python3
[ -x "${VETRO_CI_VENV:-}/bin/python" ] && PY="$VETRO_CI_VENV/bin/python"

timeout 900 "$PY" crates/vetro-server/tests/client/murano_scenario.py \
    --vetro "$VETRO" --murano "$VETRO_MURANO_CLI"

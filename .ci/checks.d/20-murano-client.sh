#!/usr/bin/env bash
# The real Murano client (python-muranoclient 2.8.0, installed by
# .ci/setup.d/21-muranoclient.sh) against `vetro serve` on a loopback port with
# a fresh SQLite database: catalog, class schemas, categories, environments, sessions, apps,
# deploy, deployments, the deployed model's actions, templates and deletion,
# each step's output checked (crates/vetro-server/tests/client/murano_scenario.py).
# Bounded: every client call times out after 120 s, every wait after 300 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh

if [ -z "${VETRO_MURANO_CLI:-}" ] || [ ! -x "$VETRO_MURANO_CLI" ]; then
    skip "VETRO_MURANO_CLI unset; see .ci/setup.d/21-muranoclient.sh"
fi

vetro_build

timeout 900 "$PY" crates/vetro-server/tests/client/murano_scenario.py \
    --vetro "$VETRO" --murano "$VETRO_MURANO_CLI"

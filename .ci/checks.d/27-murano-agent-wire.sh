#!/usr/bin/env bash
# Wire compatibility with Murano over the real RabbitMQ, both ways:
# - Debian's murano-agent runs the execution plans vetro's engine builds and
#   publishes (crates/vetro-openstack/tests/murano_agent.rs). Its Python 3 bug
#   (the received plan written to a file opened 'wb') is patched in a copy made
#   here; nothing downloaded is kept.
# - `vetro agent` answers plans published as Murano's engine published them,
#   formats 1 and 2, signed (crates/vetro-agent/tests/support/murano_engine_wire.py,
#   kombu as Murano used it).
# Skips when RabbitMQ (.ci/setup.d/05-openstack.sh) or murano-agent
# (.ci/setup.d/06-murano-agent.sh) is missing. Bounded: 300 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh
started=$SECONDS

if [ -z "${VETRO_TEST_AMQP_URL:-}" ]; then
    skip "RabbitMQ is not running; see .ci/setup.d/05-openstack.sh"
fi
if declare -F ci_wait >/dev/null; then
    ci_wait murano-agent 600 || true
fi
AGENT_SRC=/usr/lib/python3/dist-packages/muranoagent
if [ ! -d "$AGENT_SRC" ] || ! /usr/bin/python3 -c 'import kombu, cryptography' 2>/dev/null; then
    skip "Debian's murano-agent is not installed; see .ci/setup.d/06-murano-agent.sh"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$AGENT_SRC" "$work/"
sed -i "s/open(plan_file_path, 'wb')/open(plan_file_path, 'w')/" "$work/muranoagent/execution_plan_queue.py"
if ! grep -q "open(plan_file_path, 'w')" "$work/muranoagent/execution_plan_queue.py"; then
    echo "murano-agent-wire: FAILED: this murano-agent's plan queue is not the one the patch knows"
    exit 1
fi

# Built first, outside the bound: on a busy machine the build alone can
# take minutes (the bound is for the scenario).
cargo test -q -p vetro-openstack --test murano_agent --no-run
VETRO_TEST_MURANO_AGENT_PATH="$work" timeout 240 \
    cargo test -q -p vetro-openstack --test murano_agent -- --nocapture
vetro_build
timeout 120 /usr/bin/python3 crates/vetro-agent/tests/support/murano_engine_wire.py \
    "$VETRO_TEST_AMQP_URL" "$VETRO" "$work/vetro-agent"
echo "murano-agent-wire: passed in $((SECONDS - started))s"

#!/usr/bin/env bash
# End to end on the real OpenStack services: the real Murano client, with real
# Keystone authentication, against `vetro serve --auth keystone --backend
# openstack` (crates/vetro-server/tests/client/murano_cloud.py): imports the
# example package and murano-apps' WordPress stack, deploys them to Heat through
# the user's Keystone trust, plays each server with `vetro agent` started from
# the server's user data, runs an action, deletes the environment and its stack,
# and checks that no trust is left in Keystone. Skips when Keystone, Heat or
# RabbitMQ (.ci/setup.d/05-openstack.sh), the client
# (.ci/setup.d/21-muranoclient.sh) or `unshare --mount` (root) is missing.
# Bounded: 300 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh
started=$SECONDS

if [ -z "${VETRO_MURANO_CLI:-}" ] || [ ! -x "$VETRO_MURANO_CLI" ]; then
    skip "VETRO_MURANO_CLI unset; see .ci/setup.d/21-muranoclient.sh"
fi
if [ -z "${VETRO_TEST_CLOUDS_YAML:-}" ] || [ ! -f "$VETRO_TEST_CLOUDS_YAML" ] \
    || [ -z "${VETRO_TEST_AMQP_URL:-}" ] \
    || ! curl -s -o /dev/null "${VETRO_TEST_HEAT_URL:-http://127.0.0.1:1/}"; then
    skip "Keystone, Heat or RabbitMQ is not running; see .ci/setup.d/05-openstack.sh"
fi
if ! unshare --mount --propagation private true 2>/dev/null; then
    skip "playing the instances needs unshare --mount: run as root"
fi

vetro_build

timeout 300 "$PY" crates/vetro-server/tests/client/murano_cloud.py --vetro "$VETRO" \
    --murano "$VETRO_MURANO_CLI" --clouds "$VETRO_TEST_CLOUDS_YAML" --amqp "$VETRO_TEST_AMQP_URL"
echo "murano-cloud: done in $((SECONDS - started))s"

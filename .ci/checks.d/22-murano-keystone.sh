#!/usr/bin/env bash
# The real Murano client with real Keystone authentication against
# `vetro serve --auth keystone` (crates/vetro-server/tests/client/murano_keystone.py):
# the scenario makes its own service user, registers the service in Keystone's
# catalog as application-catalog, imports the example package, deploys it on
# the simulator, lists, and deletes through a separate `vetro worker` process; checks the trust of each task, 401s, the
# admin role and the revocation bound; removes what it made in Keystone.
# Skips when Keystone (.ci/setup.d/05-openstack.sh) or the client
# (.ci/setup.d/21-muranoclient.sh) is missing. Bounded: 600 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh
started=$SECONDS

if [ -z "${VETRO_MURANO_CLI:-}" ] || [ ! -x "$VETRO_MURANO_CLI" ]; then
    skip "VETRO_MURANO_CLI unset; see .ci/setup.d/21-muranoclient.sh"
fi
if [ -z "${VETRO_TEST_CLOUDS_YAML:-}" ] || [ ! -f "$VETRO_TEST_CLOUDS_YAML" ] \
    || ! curl -s -o /dev/null "${VETRO_TEST_KEYSTONE_URL:-http://127.0.0.1:1/}"; then
    skip "Keystone is not running; see .ci/setup.d/05-openstack.sh"
fi

vetro_build

timeout 600 "$PY" crates/vetro-server/tests/client/murano_keystone.py \
    --vetro "$VETRO" --murano "$VETRO_MURANO_CLI" --clouds "$VETRO_TEST_CLOUDS_YAML"
echo "murano-keystone: done in $((SECONDS - started))s"

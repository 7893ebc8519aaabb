#!/usr/bin/env bash
# The web dashboard in headless Chromium over WebDriver (Python selenium):
# sign in, import the example package, create an environment, add the web
# server through its form (invalid values first), deploy and watch the live
# log reach `ready`, run an action, delete the environment
# (crates/vetro-dashboard/tests/browser/dashboard_browser.py). When Keystone
# runs (.ci/setup.d/05-openstack.sh), also a service on Keystone: password
# sign-in, a deployment acting through the user's trust. Screenshots of
# every page go to $VETRO_BROWSER_SHOTS (a temporary folder by default).
# Bounded: the scenario stops after 600 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh
started=$SECONDS

if command -v ci_wait >/dev/null 2>&1; then
    ci_wait debian || true
fi
CHROMIUM=$(command -v chromium || true)
DRIVER=$(command -v chromedriver || true)
PY=${VETRO_SELENIUM_PYTHON:-python3}
if [ -z "$CHROMIUM" ] || [ -z "$DRIVER" ]; then
    skip "chromium and chromium-driver are not installed"
fi
if ! "$PY" -c 'import selenium' 2>/dev/null; then
    skip "selenium is not installed; see .ci/setup.d/62-selenium.sh"
fi

vetro_build
SHOTS=${VETRO_BROWSER_SHOTS:-$(mktemp -d)}
KEYSTONE=()
if [ -n "${VETRO_TEST_CLOUDS_YAML:-}" ] && [ -f "$VETRO_TEST_CLOUDS_YAML" ] \
    && curl -s -o /dev/null "${VETRO_TEST_KEYSTONE_URL:-http://127.0.0.1:1/}"; then
    KEYSTONE=(--keystone-clouds "$VETRO_TEST_CLOUDS_YAML")
else
    echo "dashboard-browser: Keystone is not running; its sign-in is not tried"
fi
timeout 600 "$PY" crates/vetro-dashboard/tests/browser/dashboard_browser.py \
    --vetro "$VETRO" --chromium "$CHROMIUM" --chromedriver "$DRIVER" --screenshots "$SHOTS" \
    "${KEYSTONE[@]}"
echo "dashboard-browser: done in $((SECONDS - started))s"

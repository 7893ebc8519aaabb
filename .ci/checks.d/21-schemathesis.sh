#!/usr/bin/env bash
# Contract fuzzing: schemathesis (installed by .ci/setup.d/21-muranoclient.sh)
# generates requests from `vetro serve`'s own /openapi.json and checks that no
# answer is a server error (5xx) and that every answer conforms to the
# description (status, content type and body schema). The server runs on a
# loopback port with a fresh SQLite database and an admin token.
# Bounded: at most ST_EXAMPLES cases per operation and phase (57 operations;
# schemathesis' own --max-time would repeat fuzzing until the time is spent, so
# the time bound is `timeout ST_MAX_TIME`); the run must have generated at
# least ST_MIN_CASES test cases.
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh

ST_EXAMPLES=${ST_EXAMPLES:-8}
ST_MAX_TIME=${ST_MAX_TIME:-600}
ST_MIN_CASES=${ST_MIN_CASES:-1000}

if [ -z "${VETRO_SCHEMATHESIS:-}" ] || [ ! -x "$VETRO_SCHEMATHESIS" ]; then
    skip "VETRO_SCHEMATHESIS unset; see .ci/setup.d/21-muranoclient.sh"
fi

vetro_build

work=$(mktemp -d)
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

db="sqlite://$work/vetro.db"
token=$("$VETRO" token create --db "$db" --project fuzz --user fuzzer --admin)
"$VETRO" serve --db "$db" --listen 127.0.0.1:0 >"$work/serve.out" 2>"$work/serve.log" &
server=$!
for _ in $(seq 100); do
    grep -q "listening on" "$work/serve.out" 2>/dev/null && break
    sleep 0.1
done
url=$(grep -o 'http://[0-9.:]*' "$work/serve.out")
echo "schemathesis: against $url (examples per operation $ST_EXAMPLES, at most ${ST_MAX_TIME}s)"

set +e
hooks="$PWD/crates/vetro-server/tests/client"
# Run from the temporary folder: schemathesis keeps state in ./.schemathesis.
(cd "$work" && PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$hooks" SCHEMATHESIS_HOOKS=schemathesis_hooks \
    timeout "$ST_MAX_TIME" "$VETRO_SCHEMATHESIS" run "$url/openapi.json" \
    --header "X-Auth-Token: $token" --header "Accept: application/json" \
    --checks not_a_server_error,response_schema_conformance \
    --max-examples "$ST_EXAMPLES" --request-timeout 30 \
    --seed 20261202 --generation-database none --no-color --output-sanitize true \
    >"$work/st.log" 2>&1)
rc=$?
set -e
sed -n '/^=* SUMMARY/,$p' "$work/st.log"
if [ $rc -eq 124 ]; then
    echo "schemathesis: FAILED: not finished within ${ST_MAX_TIME}s"
    tail -n 40 "$work/st.log"
    exit 1
fi
if [ $rc -ne 0 ]; then
    sed -n '/^=* FAILURES/,/^=* WARNINGS/p;/^=* ERRORS/,/^=* FAILURES/p' "$work/st.log" | head -n 200
    echo "schemathesis: FAILED (exit $rc); the server's log ends:"
    tail -n 20 "$work/serve.log"
    exit 1
fi
cases=$(grep -oE '^ *[0-9]+ generated' "$work/st.log" | grep -oE '[0-9]+' | tail -1)
echo "schemathesis: ${cases:-0} test cases generated, no server error, every answer as described"
if [ "${cases:-0}" -lt "$ST_MIN_CASES" ]; then
    echo "schemathesis: FAILED: fewer than $ST_MIN_CASES test cases generated"
    exit 1
fi

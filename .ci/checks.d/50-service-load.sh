#!/usr/bin/env bash
# The service under hostile tenants, on loopback: `vetro serve --workers 0`
# plus two `vetro worker` processes on one database (SQLite, then PostgreSQL
# when VETRO_TEST_PG_URL is set), 200 deployments over 20 environments of
# one project while another keeps deploying an endless loop and a third a
# memory bomb (scripts/load_hostile.py). Every honest deployment must
# succeed, none fail from a lock; the hostile ones fail with their limit's
# message; no process of the service dies. Bounded: each run is stopped
# after 130 s (about a minute each on two shared cores).
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh
start=$SECONDS

vetro_build --release
work=$(mktemp -d)
pids=()
pg_db=
psql_bin=$(command -v psql || ls -d /usr/lib/postgresql/*/bin/psql 2>/dev/null | sort -V | tail -1 || true)
stop_all() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    pids=()
}
cleanup() {
    stop_all
    if [ -n "$pg_db" ]; then "$psql_bin" "$VETRO_TEST_PG_URL" -qc "DROP DATABASE IF EXISTS $pg_db" || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# Engine limits small enough that the hostile tasks end within the run:
# the loop stops at its 10 s wall clock, the bomb at 256 MiB.
LIMITS=(--task-timeout 10 --task-max-memory 256 --lease-seconds 10 --max-running-per-project 4)

run() {
    local label=$1 db=$2 began=$SECONDS
    "$VETRO" db migrate --db "$db" >/dev/null
    "$VETRO" serve --db "$db" --listen 127.0.0.1:0 --workers 0 "${LIMITS[@]}" \
        >"$work/$label.out" 2>"$work/$label.log" &
    local server=$!
    pids+=("$server")
    local url=
    for _ in $(seq 300); do
        url=$(grep -o 'http://[0-9.:]*' "$work/$label.out" 2>/dev/null || true)
        [ -n "$url" ] && break
        sleep 0.1
    done
    if [ -z "$url" ]; then
        echo "service-load: $label: the server did not start"; cat "$work/$label.log"; exit 1
    fi
    local workers=()
    for w in 1 2; do
        "$VETRO" worker --db "$db" --concurrency 3 --packages-dir "$work/pkgs-$label-$w" "${LIMITS[@]}" \
            >/dev/null 2>"$work/$label-worker$w.log" &
        workers+=($!)
        pids+=($!)
    done
    local rc=0
    timeout 130 python3 scripts/load_hostile.py --url "$url" --db "$db" --vetro "$VETRO" \
        --deploys 200 --envs 20 --label "$label" --timeout 120 || rc=$?
    for p in "$server" "${workers[@]}"; do
        if ! kill -0 "$p" 2>/dev/null; then
            echo "service-load: $label: a service process (pid $p) died during the run"; rc=1
        fi
    done
    stop_all
    if grep -l "database is locked\|panicked" "$work"/"$label"*.log; then
        echo "service-load: $label: a database lock or a panic reached the logs"; rc=1
    fi
    if [ "$rc" != 0 ]; then
        for f in "$work"/"$label"*.log; do echo "--- $f"; tail -n 20 "$f"; done
        exit 1
    fi
    echo "service-load: $label passed in $((SECONDS - began)) s"
}

run sqlite "sqlite://$work/vetro.db"
if [ -n "${VETRO_TEST_PG_URL:-}" ]; then
    if [ -z "$psql_bin" ]; then
        echo "service-load: psql not found, cannot create the PostgreSQL database"; exit 1
    fi
    pg_db="vetro_load_$$"
    "$psql_bin" "$VETRO_TEST_PG_URL" -qc "CREATE DATABASE $pg_db"
    run postgres "${VETRO_TEST_PG_URL%/*}/$pg_db"
else
    echo "service-load: PostgreSQL run skipped (VETRO_TEST_PG_URL unset)"
fi
echo "service-load: done in $((SECONDS - start)) s"

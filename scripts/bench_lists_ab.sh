#!/usr/bin/env bash
# Two builds of vetro side by side on the list endpoints: each serves a copy
# of one seeded project (scripts/bench_seed.py: 1,000 environments, a quarter
# with a queued deployment, 200 templates, 200 packages), and wrk loads each
# list's default page, the two builds alternated, ROUNDS times. It checks
# first that both builds answer every list byte for byte the same.
#
#   scripts/bench_lists_ab.sh BEFORE AFTER [ROUNDS] [SECONDS]
#
# Environment: BACKENDS ("sqlite pg", default), LISTS (as in
# scripts/bench_server.sh), BENCH_PG_URL (a PostgreSQL URL whose user may
# create databases; default VETRO_TEST_PG_URL): the databases
# vetro_bench_ab_before and vetro_bench_ab_after are made there and dropped
# at the end. Needs wrk, curl, psql, python3. Results are in
# crates/vetro-server/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench_serve_url.sh
BEFORE=$(realpath "$1")
AFTER=$(realpath "$2")
ROUNDS=${3:-2}
SECS=${4:-4}
LISTS=${LISTS:-environments deployments templates catalog/packages}
BACKENDS=${BACKENDS:-sqlite pg}
PG=${BENCH_PG_URL:-${VETRO_TEST_PG_URL:-}}
work=$(mktemp -d)
pids=()
stop() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    pids=()
}
cleanup() {
    stop
    if [ -n "$PG" ]; then
        psql -q "$PG" -c "DROP DATABASE IF EXISTS vetro_bench_ab_before WITH (FORCE)" \
            -c "DROP DATABASE IF EXISTS vetro_bench_ab_after WITH (FORCE)" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# Starts BIN serving DB without workers (the deployments stay queued); sets URL.
serve() {
    local bin=$1 db=$2 name=$3
    "$bin" serve --db "$db" --listen 127.0.0.1:0 --rate-limit 0 --workers 0 \
        --max-active-tasks 100000 >"$work/$name.out" 2>"$work/$name.log" &
    pids+=($!)
    wait_for_url "$work/$name.out"
}

one() {
    local label=$1 url=$2
    wrk -t1 -c32 -d1s -H "X-Auth-Token: $TOKEN" "$url" >/dev/null
    wrk -t1 -c32 -d"${SECS}s" --latency -H "X-Auth-Token: $TOKEN" "$url" >"$work/wrk.txt"
    printf '%-36s %10s req/s   p50 %8s   p99 %8s   load %s   %s\n' "$label" \
        "$(awk '/^Requests\/sec/ {print $2}' "$work/wrk.txt")" \
        "$(awk '$1 == "50%" {print $2}' "$work/wrk.txt")" \
        "$(awk '$1 == "99%" {print $2}' "$work/wrk.txt")" \
        "$(cut -d' ' -f1 /proc/loadavg)" \
        "$(grep -E 'Non-2xx|Socket errors' "$work/wrk.txt" | tr '\n' ' ' || echo 'no errors')"
}

for backend in $BACKENDS; do
    if [ "$backend" = sqlite ]; then
        before_db="sqlite://$work/before.db"
        after_db="sqlite://$work/after.db"
    else
        [ -n "$PG" ] || { echo "bench: PostgreSQL skipped (no BENCH_PG_URL)"; continue; }
        psql -q "$PG" -c "DROP DATABASE IF EXISTS vetro_bench_ab_before WITH (FORCE)" \
            -c "DROP DATABASE IF EXISTS vetro_bench_ab_after WITH (FORCE)" \
            -c "CREATE DATABASE vetro_bench_ab_before"
        before_db="${PG%/*}/vetro_bench_ab_before"
        after_db="${PG%/*}/vetro_bench_ab_after"
    fi
    TOKEN=$("$BEFORE" token create --db "$before_db" --project bench --user bench --admin)
    serve "$BEFORE" "$before_db" seed
    python3 scripts/bench_seed.py --url "$URL" --token "$TOKEN" --envs 1000 \
        --templates 200 --packages 200 >/dev/null
    stop
    # The after build migrates its copy when it starts.
    if [ "$backend" = sqlite ]; then
        for f in "$work"/before.db*; do cp "$f" "${f/before.db/after.db}"; done
    else
        psql -q "$before_db" -c ANALYZE
        # The seeding server's connections may take a moment to end.
        for _ in $(seq 50); do
            psql -q "$PG" -c "CREATE DATABASE vetro_bench_ab_after TEMPLATE vetro_bench_ab_before" \
                2>/dev/null && break
            sleep 0.1
        done
    fi
    serve "$BEFORE" "$before_db" before
    url_before=$URL
    serve "$AFTER" "$after_db" after
    url_after=$URL
    [ "$backend" = sqlite ] || psql -q "$after_db" -c ANALYZE
    for l in $LISTS; do
        a=$(curl -s -H "X-Auth-Token: $TOKEN" "$url_before/v1/$l" | md5sum)
        b=$(curl -s -H "X-Auth-Token: $TOKEN" "$url_after/v1/$l" | md5sum)
        if [ "$a" = "$b" ]; then echo "$l: the same answer"; else echo "$l: the answers differ"; fi
    done
    for r in $(seq "$ROUNDS"); do
        for l in $LISTS; do
            one "$backend, before, $l ($r)" "$url_before/v1/$l"
            one "$backend, after, $l ($r)" "$url_after/v1/$l"
        done
    done
    stop
done

#!/usr/bin/env bash
# Load test of `vetro serve` from a second process on loopback, bounded in time:
#
#   1. the list endpoints (`GET /v1/environments`, `/v1/deployments`,
#      `/v1/templates`, `/v1/catalog/packages`, each at its default page) of a
#      project filled by scripts/bench_seed.py (BENCH_LIST_ENVS environments,
#      a quarter of them with a queued deployment), with wrk, on SQLite and on
#      PostgreSQL: requests per second and latency percentiles;
#   2. deployments of the bundled example (scripts/bench_deploy.py) through the
#      API with in-process workers (SQLite and PostgreSQL) and with separate
#      `vetro worker` processes (PostgreSQL), when this vetro has workers.
#
#   scripts/bench_server.sh [VETRO]        # default target/release/vetro
#
# Environment: BENCH_SECONDS (wrk duration per run, default 10),
# BENCH_LIST_ENVS (environments of the list runs, default 1000),
# BENCH_LISTS (which lists, default "environments deployments templates
# catalog/packages"), BENCH_SKIP_DEPLOYS=1 (list runs only),
# BENCH_CONNECTIONS (default 32), BENCH_PG_URL (an existing PostgreSQL
# database to use; otherwise a throw-away cluster is started on port 55499 when
# Debian's postgresql is installed), BENCH_DEPLOYS (default 200),
# BENCH_ENVS (default 20). Needs wrk (Debian package `wrk`), curl, python3;
# psql, when found, refreshes PostgreSQL's statistics after the seeding.
# Results are in crates/vetro-server/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench_serve_url.sh

VETRO=$(realpath "${1:-target/release/vetro}")
SECONDS_PER_RUN=${BENCH_SECONDS:-10}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
DEPLOYS=${BENCH_DEPLOYS:-200}
ENVS=${BENCH_ENVS:-20}
LIST_ENVS=${BENCH_LIST_ENVS:-1000}
LISTS=${BENCH_LISTS:-environments deployments templates catalog/packages}
command -v wrk >/dev/null || { echo "bench: wrk is needed (apt-get install wrk)"; exit 2; }

work=$(mktemp -d)
chmod 755 "$work"  # the PostgreSQL cluster may run as another user
pids=()
pg_stop=
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    [ -n "$pg_stop" ] && eval "$pg_stop" >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT

# Starts `vetro serve` on DB with extra flags; sets URL and TOKEN.
serve() {
    local db=$1 name=$2
    shift 2
    TOKEN=$("$VETRO" token create --db "$db" --project bench --user bench --admin)
    # One token makes every request here: its rate limit (where the binary has one) is off.
    local rate=()
    "$VETRO" serve --help | grep -q -- "--rate-limit" && rate=(--rate-limit 0)
    "$VETRO" serve --db "$db" --listen 127.0.0.1:0 "${rate[@]}" "$@" >"$work/$name.out" 2>"$work/$name.log" &
    pids+=($!)
    wait_for_url "$work/$name.out"
}

stop_servers() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    pids=()
}

# Fills the project, then loads each list in turn.
list_bench() {
    local backend=$1 list
    python3 scripts/bench_seed.py --url "$URL" --token "$TOKEN" --envs "$LIST_ENVS" \
        --templates 200 --packages 200 >/dev/null
    # PostgreSQL plans from table statistics, which autovacuum refreshes a
    # while after a bulk load; without them a page of 100 out of 1,000 rows
    # sorts the whole project. Refresh them now, as autovacuum would.
    if [ "$backend" = PostgreSQL ] && [ -n "${PSQL:-}" ]; then
        "$PSQL" -q "$PG_URL" -c ANALYZE
    fi
    for list in $LISTS; do
        one_list "GET /v1/$list, $backend" "$URL/v1/$list"
    done
    # Later runs on the same database must not find the queued deployments.
    python3 scripts/bench_seed.py --url "$URL" --token "$TOKEN" --remove
}

one_list() {
    local label=$1 url=$2
    # Warm up, then measure.
    wrk -t1 -c"$CONNECTIONS" -d2s -H "X-Auth-Token: $TOKEN" "$url" >/dev/null
    wrk -t1 -c"$CONNECTIONS" -d"${SECONDS_PER_RUN}s" --latency -H "X-Auth-Token: $TOKEN" \
        "$url" >"$work/wrk.txt"
    local rps p50 p99 errors
    rps=$(awk '/^Requests\/sec/ {print $2}' "$work/wrk.txt")
    p50=$(awk '$1 == "50%" {print $2}' "$work/wrk.txt")
    p99=$(awk '$1 == "99%" {print $2}' "$work/wrk.txt")
    errors=$(grep -E "Non-2xx|Socket errors" "$work/wrk.txt" || true)
    printf '%-44s %10s req/s   p50 %8s   p99 %8s   %s\n' "$label" "$rps" "$p50" "$p99" "${errors:-no errors}"
}

pg_as() { if [ "$(id -u)" = 0 ]; then runuser -u "$PG_USER" -- "$@"; else "$@"; fi; }

# A throw-away PostgreSQL cluster, as .ci/setup.d/20-postgres.sh starts one.
start_pg() {
    local bin port=55499
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    [ -n "$bin" ] || return 1
    PG_USER=$(id -un)
    if [ "$(id -u)" = 0 ]; then PG_USER=postgres; id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres; fi
    mkdir -p "$work/pg" && chown "$PG_USER" "$work/pg"
    pg_as "$bin/initdb" -D "$work/pg/data" -U vetro --auth=trust -E UTF8 >/dev/null
    pg_as "$bin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -w \
        -o "-h 127.0.0.1 -p $port -k $work/pg -c fsync=off -c max_connections=200" start >/dev/null
    pg_stop="pg_as $bin/pg_ctl -D $work/pg/data -m fast stop"
    pg_as "$bin/createdb" -h 127.0.0.1 -p "$port" -U vetro bench
    PG_URL="postgres://vetro@127.0.0.1:$port/bench"
    PSQL=$bin/psql
}

echo "bench: $VETRO on $(nproc) cores; wrk 1 thread, $CONNECTIONS connections, ${SECONDS_PER_RUN}s per run"
echo "bench: load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# No workers: a quarter of the environments keep a queued deployment.
LIST_FLAGS=(--workers 0 --max-active-tasks 100000)
serve "sqlite://$work/list.db" sqlite-list "${LIST_FLAGS[@]}"
list_bench SQLite
stop_servers

PG_URL=${BENCH_PG_URL:-}
PSQL=$(command -v psql || true)
if [ -z "$PG_URL" ] && ! start_pg; then
    echo "bench: PostgreSQL skipped (no BENCH_PG_URL and no Debian postgresql)"
else
    serve "$PG_URL" pg-list "${LIST_FLAGS[@]}"
    list_bench PostgreSQL
    stop_servers
fi

if [ -n "${BENCH_SKIP_DEPLOYS:-}" ]; then
    exit 0
fi
if ! "$VETRO" serve --help | grep -q -- "--workers"; then
    echo "bench: deployments skipped (this vetro serve runs no engine workers)"
    exit 0
fi
deploy_bench() {
    python3 scripts/bench_deploy.py --url "$URL" --token "$TOKEN" --deploys "$DEPLOYS" \
        --envs "$ENVS" --label "$1"
}
serve "sqlite://$work/deploy.db" sqlite-deploy --workers 2
deploy_bench "SQLite, vetro serve --workers 2"
stop_servers
if [ -n "$PG_URL" ]; then
    serve "$PG_URL" pg-deploy --workers 2
    deploy_bench "PostgreSQL, vetro serve --workers 2"
    stop_servers
    serve "$PG_URL" pg-api --workers 0
    for w in 1 2; do
        "$VETRO" worker --db "$PG_URL" >"$work/worker$w.log" 2>&1 &
        pids+=($!)
    done
    deploy_bench "PostgreSQL, 2 vetro worker processes"
    stop_servers
fi
echo "bench: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# The service under hostile tenants, on loopback: `vetro serve --workers 0`
# plus two `vetro worker` processes on one database (SQLite, then PostgreSQL
# when VETRO_TEST_PG_URL is set), 200 deployments over 20 environments of
# one project while another keeps deploying an endless loop and a third a
# memory bomb (scripts/load_hostile.py). Every honest deployment must
# succeed, none fail from a lock; the hostile ones fail with their limit's
# message. Bounded: each run times out after 600 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)

cargo build -q --release -p vetro-cli
VETRO=$(realpath "${CARGO_TARGET_DIR:-target}/release/vetro")
work=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# Engine limits small enough that the hostile tasks end within the run.
LIMITS=(--task-timeout 20 --task-max-memory 256 --lease-seconds 10)

run() {
    local label=$1 db=$2
    "$VETRO" db migrate --db "$db" >/dev/null
    "$VETRO" serve --db "$db" --listen 127.0.0.1:0 --workers 0 "${LIMITS[@]}" \
        >"$work/$label.out" 2>"$work/$label.log" &
    pids+=($!)
    for _ in $(seq 200); do
        grep -q "listening on" "$work/$label.out" 2>/dev/null && break
        sleep 0.05
    done
    local url
    url=$(grep -o 'http://[0-9.:]*' "$work/$label.out")
    for w in 1 2; do
        "$VETRO" worker --db "$db" --concurrency 3 --packages-dir "$work/pkgs-$label-$w" "${LIMITS[@]}" \
            >/dev/null 2>"$work/$label-worker$w.log" &
        pids+=($!)
    done
    timeout 600 python3 scripts/load_hostile.py --url "$url" --db "$db" --vetro "$VETRO" \
        --deploys 200 --envs 20 --label "$label" --timeout 540
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    pids=()
    if grep -l "database is locked" "$work"/"$label"*.log; then
        echo "service-load: $label: a database lock reached the logs"
        exit 1
    fi
}

run sqlite "sqlite://$work/vetro.db"
if [ -n "${VETRO_TEST_PG_URL:-}" ]; then
    name="vetro_load_$$"
    psql "$VETRO_TEST_PG_URL" -qc "CREATE DATABASE $name"
    run postgres "${VETRO_TEST_PG_URL%/*}/$name"
else
    echo "service-load: PostgreSQL run skipped (VETRO_TEST_PG_URL unset)"
fi
echo "service-load: done in $(( $(date +%s) - start )) s"

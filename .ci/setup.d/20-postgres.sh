# PostgreSQL for the store's test suite: Debian's postgresql package and a
# throw-away cluster on a loopback port, run as an unprivileged user.
# Exports VETRO_TEST_PG_URL (a database the tests may create databases from).

ci_wait debian || true   # .ci/setup.d/05-debian.sh installs postgresql
VETRO_PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
VETRO_PG_PORT=${VETRO_PG_PORT:-55432}
VETRO_PG_DIR=${VETRO_PG_DIR:-${TMPDIR:-/tmp}/vetro-ci-pg}
# The cluster's owner: postgres refuses to run as root.
VETRO_PG_USER=$(id -un)
if [ "$(id -u)" = 0 ]; then
    VETRO_PG_USER=postgres
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
fi
pg_as() { if [ "$(id -u)" = 0 ]; then runuser -u "$VETRO_PG_USER" -- "$@"; else "$@"; fi; }

if ! pg_as "$VETRO_PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$VETRO_PG_PORT"; then
    rm -rf "$VETRO_PG_DIR"
    mkdir -p "$VETRO_PG_DIR"
    chown "$VETRO_PG_USER" "$VETRO_PG_DIR"
    pg_as "$VETRO_PG_BIN/initdb" -D "$VETRO_PG_DIR/data" -U vetro --auth=trust -E UTF8 >/dev/null
    pg_as "$VETRO_PG_BIN/pg_ctl" -D "$VETRO_PG_DIR/data" -l "$VETRO_PG_DIR/log" -w \
        -o "-h 127.0.0.1 -p $VETRO_PG_PORT -k $VETRO_PG_DIR -c fsync=off -c max_connections=200" start >/dev/null
    pg_as "$VETRO_PG_BIN/createdb" -h 127.0.0.1 -p "$VETRO_PG_PORT" -U vetro vetro
fi
export VETRO_TEST_PG_URL="postgres://vetro@127.0.0.1:$VETRO_PG_PORT/vetro"
echo "PostgreSQL ready: $VETRO_TEST_PG_URL"

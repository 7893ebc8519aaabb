#!/usr/bin/env bash
# Installs (once) and starts the real Keystone and Heat on loopback for the
# OpenStack backend's tests: Keystone under uwsgi; Heat's API and engine in one
# process (heat_one_process.py), behind that Keystone. Both keep their data in
# databases of their own in the PostgreSQL that .ci/setup.d/20-postgres.sh
# starts (on VETRO_PG_PORT), or in SQLite when it does not answer.
# Neutron cannot run here: a small stand-in that follows the Neutron API
# (neutron_standin.py, validating tokens with the real Keystone) is registered
# in the catalog as the `network` service, for the network explorer.
# When RabbitMQ answers (on VETRO_RABBITMQ_PORT, default 5672), Heat sends its
# notifications there (oslo.messaging, messagingv2), as a cloud's Heat does
# for the engine's --heat-notifications; env.sh then names that broker.
# Every step prints its duration. Usage: openstack-services.sh DIR
#
# Afterwards DIR holds clouds.yaml (clouds `vetro-test`: the demo project;
# `vetro-admin`), env.sh (the variables the tests read) and the logs.
set -euo pipefail
DIR=$(mkdir -p "$1" && cd "$1" && pwd)
rm -f "$DIR/env.sh"   # written again only once everything answers
HERE=$(cd "$(dirname "$0")" && pwd)
KS_PORT=${VETRO_KEYSTONE_PORT:-55357}
HEAT_PORT=${VETRO_HEAT_PORT:-55004}
NEUTRON_PORT=${VETRO_NEUTRON_PORT:-55696}
PY=${VETRO_OPENSTACK_PYTHON:-python3}
KS_VENV=${VETRO_KEYSTONE_VENV:-${TMPDIR:-/tmp}/vetro-keystone-venv}
HEAT_VENV=${VETRO_HEAT_VENV:-${TMPDIR:-/tmp}/vetro-heat-venv}
ADMIN_PW=vetro-admin-secret
HEAT_PW=vetro-heat-secret
DEMO_PW=vetro-demo-secret
KS_URL=http://127.0.0.1:$KS_PORT/v3

t0=$(date +%s)
took() { echo "[openstack-services] $1: $(( $(date +%s) - t0 ))s since start"; }

install_venv() { # VENV PACKAGES...
    local venv=$1; shift
    if [ "$(cat "$venv/.vetro-installed" 2>/dev/null)" = "$*" ]; then return; fi
    rm -rf "$venv"
    "$PY" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
    echo "$*" > "$venv/.vetro-installed"
}

wait_http() { # URL SECONDS
    for _ in $(seq 1 $(( $2 * 5 ))); do
        if curl -s -o /dev/null "$1"; then return 0; fi
        sleep 0.2
    done
    echo "[openstack-services] $1 did not answer in $2 s" >&2
    return 1
}

# Both installs at once: each takes minutes, mostly downloading.
install_venv "$KS_VENV" keystone uwsgi psycopg2-binary > "$DIR/keystone-pip.log" 2>&1 &
ks_pid=$!
install_venv "$HEAT_VENV" openstack-heat psycopg2-binary > "$DIR/heat-pip.log" 2>&1 &
heat_pid=$!
wait $ks_pid || { cat "$DIR/keystone-pip.log" >&2; exit 1; }
took "keystone installed"

# A service's database: a fresh one of its own in PostgreSQL when it answers,
# else SQLite in the service's folder. Several threads of Keystone and of
# Heat's engine write at once; on SQLite some of those writes fail with
# "database is locked" (Keystone then drops the connection without an answer).
PG_PORT=${VETRO_PG_PORT:-55432}
database_url() { # NAME FOLDER PYTHON: prints the SQLAlchemy URL
    local name=$1 folder=$2 py=$3 db=vetro_$1_$KS_PORT
    for _ in $(seq 1 ${VETRO_OPENSTACK_PG_WAIT:-300}); do
        (exec 3<>"/dev/tcp/127.0.0.1/$PG_PORT") 2>/dev/null && break
        sleep 1
    done
    if "$py" - "$PG_PORT" "$db" > "$folder/pg.log" 2>&1 <<'PY'
import sys, time, psycopg2
# The maintenance database: it exists as soon as the server answers.
for attempt in range(20):
    try:
        conn = psycopg2.connect(host="127.0.0.1", port=int(sys.argv[1]), user="vetro",
                                dbname="postgres", connect_timeout=5)
        break
    except psycopg2.OperationalError:
        if attempt == 19:
            raise
        time.sleep(0.5)
conn.autocommit = True
with conn.cursor() as cur:
    cur.execute('DROP DATABASE IF EXISTS "%s"' % sys.argv[2])
    cur.execute('CREATE DATABASE "%s"' % sys.argv[2])
PY
    then
        echo "postgresql+psycopg2://vetro@127.0.0.1:$PG_PORT/$db"
    else
        echo "sqlite:///$folder/$name.sqlite"
    fi
}

# --- Keystone
KS=$DIR/keystone
rm -rf "$KS" && mkdir -p "$KS"
KS_DB=$(database_url keystone "$KS" "$KS_VENV/bin/python")
took "keystone database: ${KS_DB%%:*}"
cat > "$KS/keystone.conf" <<CONF
[database]
connection = $KS_DB
[fernet_tokens]
key_repository = $KS/fernet-keys
[credential]
key_repository = $KS/credential-keys
[token]
provider = fernet
CONF
ksm() { "$KS_VENV/bin/keystone-manage" --config-file "$KS/keystone.conf" "$@"; }
owner=(--keystone-user "$(id -un)" --keystone-group "$(id -gn)")
ksm db_sync > "$KS/manage.log" 2>&1
ksm fernet_setup "${owner[@]}" >> "$KS/manage.log" 2>&1
ksm credential_setup "${owner[@]}" >> "$KS/manage.log" 2>&1
ksm bootstrap --bootstrap-password "$ADMIN_PW" --bootstrap-region-id RegionOne \
    --bootstrap-admin-url "$KS_URL/" --bootstrap-internal-url "$KS_URL/" --bootstrap-public-url "$KS_URL/" >> "$KS/manage.log" 2>&1
OS_KEYSTONE_CONFIG_FILES=$KS/keystone.conf setsid "$KS_VENV/bin/uwsgi" --http-socket "127.0.0.1:$KS_PORT" \
    --module keystone.wsgi.api:application --master --processes 1 --threads 4 \
    --add-header "Connection: close" \
    --pidfile "$KS/uwsgi.pid" > "$KS/uwsgi.log" 2>&1 &
wait_http "$KS_URL" 60
took "keystone answering on $KS_URL"

wait $heat_pid || { cat "$DIR/heat-pip.log" >&2; exit 1; }
took "heat installed"

# --- Projects, users and the orchestration service, through the REST API.
"$HEAT_VENV/bin/python" - "$KS_URL" "$ADMIN_PW" "$HEAT_PW" "$DEMO_PW" "$HEAT_PORT" <<'PY'
import json, sys, urllib.request
url, admin_pw, heat_pw, demo_pw, heat_port = sys.argv[1:]

def call(method, path, body=None, token=None):
    req = urllib.request.Request(url + path, method=method,
                                 data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json"})
    if token:
        req.add_header("X-Auth-Token", token)
    with urllib.request.urlopen(req) as r:
        return r.headers, (json.loads(r.read() or b"null"))

h, _ = call("POST", "/auth/tokens", {"auth": {"identity": {"methods": ["password"], "password": {"user": {
    "name": "admin", "domain": {"id": "default"}, "password": admin_pw}}},
    "scope": {"project": {"name": "admin", "domain": {"id": "default"}}}}})
tok = h["X-Subject-Token"]
def create(kind, body):
    return call("POST", "/%ss" % kind, {kind: body}, tok)[1][kind]["id"]
roles = {r["name"]: r["id"] for r in call("GET", "/roles", token=tok)[1]["roles"]}
for name in ("heat_stack_owner", "heat_stack_user"):
    roles[name] = create("role", {"name": name})
service = create("project", {"name": "service", "domain_id": "default"})
demo = create("project", {"name": "demo", "domain_id": "default"})
heat = create("user", {"name": "heat", "domain_id": "default", "password": heat_pw})
user = create("user", {"name": "demo", "domain_id": "default", "password": demo_pw})
call("PUT", "/projects/%s/users/%s/roles/%s" % (service, heat, roles["admin"]), token=tok)
for role in ("member", "heat_stack_owner"):
    call("PUT", "/projects/%s/users/%s/roles/%s" % (demo, user, roles[role]), token=tok)
svc = create("service", {"type": "orchestration", "name": "heat"})
for iface in ("public", "internal", "admin"):
    create("endpoint", {"service_id": svc, "interface": iface, "region_id": "RegionOne",
                        "url": "http://127.0.0.1:%s/v1/%%(tenant_id)s" % heat_port})
PY
took "keystone: service project, heat and demo users, orchestration endpoints"

# --- Heat
HEAT=$DIR/heat
rm -rf "$HEAT" && mkdir -p "$HEAT"
HEAT_DB=$(database_url heat "$HEAT" "$HEAT_VENV/bin/python")
took "heat database: ${HEAT_DB%%:*}"
# Heat's notifier waits for its broker on every notification: configure it
# only when RabbitMQ answers (it starts in the background meanwhile).
MQ_PORT=${VETRO_RABBITMQ_PORT:-5672}
NOTIFY_CONF=
NOTIFY_ENV=
for _ in $(seq 1 ${VETRO_HEAT_MQ_WAIT:-120}); do
    (exec 3<>"/dev/tcp/127.0.0.1/$MQ_PORT") 2>/dev/null && break
    sleep 1
done
if (exec 3<>"/dev/tcp/127.0.0.1/$MQ_PORT") 2>/dev/null; then
    NOTIFY_CONF="[oslo_messaging_notifications]
driver = messagingv2
transport_url = rabbit://guest:guest@127.0.0.1:$MQ_PORT/
retry = 3"
    NOTIFY_ENV="export VETRO_TEST_HEAT_NOTIFICATIONS=amqp://guest:guest@127.0.0.1:$MQ_PORT/%2f"
    took "heat notifications: RabbitMQ on $MQ_PORT"
else
    took "heat notifications: none (RabbitMQ not answering on $MQ_PORT)"
fi
cat > "$HEAT/heat.conf" <<CONF
[DEFAULT]
transport_url = fake://
rpc_response_timeout = 600
num_engine_workers = 1
convergence_engine = false
heat_metadata_server_url = http://127.0.0.1:$HEAT_PORT/
default_deployment_signal_transport = HEAT_SIGNAL
[database]
connection = $HEAT_DB
[paste_deploy]
api_paste_config = $HEAT_VENV/etc/heat/api-paste.ini
[keystone_authtoken]
www_authenticate_uri = $KS_URL
auth_url = http://127.0.0.1:$KS_PORT
auth_type = password
username = heat
password = $HEAT_PW
project_name = service
user_domain_name = Default
project_domain_name = Default
[trustee]
auth_type = password
auth_url = http://127.0.0.1:$KS_PORT
username = heat
password = $HEAT_PW
user_domain_name = Default
[clients_keystone]
auth_uri = http://127.0.0.1:$KS_PORT
[oslo_policy]
enforce_scope = false
enforce_new_defaults = false
$NOTIFY_CONF
CONF
"$HEAT_VENV/bin/heat-manage" --config-file "$HEAT/heat.conf" db_sync > "$HEAT/db_sync.log" 2>&1
setsid "$HEAT_VENV/bin/python" "$HERE/heat_one_process.py" --config-file "$HEAT/heat.conf" \
    --bind "127.0.0.1:$HEAT_PORT" > "$HEAT/heat.log" 2>&1 &
echo $! > "$HEAT/heat.pid"
wait_http "http://127.0.0.1:$HEAT_PORT/" 120
took "heat answering on http://127.0.0.1:$HEAT_PORT"

# --- The Neutron stand-in (Python's standard library only).
setsid "$HEAT_VENV/bin/python" "$HERE/neutron_standin.py" serve --keystone "$KS_URL" \
    --password "$ADMIN_PW" --bind "127.0.0.1:$NEUTRON_PORT" > "$DIR/neutron.log" 2>&1 < /dev/null &
echo $! > "$DIR/neutron.pid"
wait_http "http://127.0.0.1:$NEUTRON_PORT/" 30
"$HEAT_VENV/bin/python" "$HERE/neutron_standin.py" register --keystone "$KS_URL" \
    --password "$ADMIN_PW" --url "http://127.0.0.1:$NEUTRON_PORT"
took "neutron stand-in answering on http://127.0.0.1:$NEUTRON_PORT, in the catalog as network"

cat > "$DIR/clouds.yaml" <<YAML
clouds:
  vetro-test:
    auth:
      auth_url: $KS_URL
      username: demo
      password: $DEMO_PW
      project_name: demo
      user_domain_name: Default
      project_domain_name: Default
    region_name: RegionOne
    interface: public
  vetro-admin:
    auth:
      auth_url: $KS_URL
      username: admin
      password: $ADMIN_PW
      project_name: admin
      user_domain_name: Default
      project_domain_name: Default
    region_name: RegionOne
YAML
cat > "$DIR/env.sh" <<ENV
export VETRO_TEST_KEYSTONE_URL=$KS_URL
export VETRO_TEST_HEAT_URL=http://127.0.0.1:$HEAT_PORT/v1
export VETRO_TEST_NEUTRON_URL=http://127.0.0.1:$NEUTRON_PORT
export VETRO_TEST_CLOUDS_YAML=$DIR/clouds.yaml
$NOTIFY_ENV
ENV
took "ready"

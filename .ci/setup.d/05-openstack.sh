# The real RabbitMQ, Keystone and Heat for the OpenStack backend and `vetro agent`
# tests. RabbitMQ (Debian, installed by 05-debian.sh) starts in the background; the
# Keystone and Heat installs (PyPI, minutes) and their start run in the background
# while the other setup scripts work. 90-openstack-ready.sh waits for them and
# exports VETRO_TEST_AMQP_URL, VETRO_TEST_KEYSTONE_URL, VETRO_TEST_HEAT_URL,
# VETRO_TEST_CLOUDS_YAML and, when Heat sends its notifications to RabbitMQ,
# VETRO_TEST_HEAT_NOTIFICATIONS.
VETRO_OS_DIR=${VETRO_OS_DIR:-${TMPDIR:-/tmp}/vetro-ci-openstack}
VETRO_OS_T0=$(date +%s)
export VETRO_OS_DIR VETRO_OS_T0
mkdir -p "$VETRO_OS_DIR"

# rabbitmq-server comes with the other Debian packages (05-debian.sh); it is
# started once that install is done. As root the wrapper switches to the
# rabbitmq user; its own service start is refused by policy-rc.d in containers.
ci_bg rabbitmq bash -c '
    ci_wait debian >/dev/null || true
    if [ -x /usr/sbin/rabbitmq-server ] && ! (exec 3<>/dev/tcp/127.0.0.1/5672) 2>/dev/null; then
        setsid /usr/sbin/rabbitmq-server >"$VETRO_OS_DIR/rabbitmq.log" 2>&1 </dev/null &
    fi'
echo "RabbitMQ: $(( $(date +%s) - VETRO_OS_T0 ))s (starting in the background)"

if command -v python3 >/dev/null && command -v curl >/dev/null; then
    setsid bash crates/vetro-openstack/tests/support/openstack-services.sh "$VETRO_OS_DIR" \
        > "$VETRO_OS_DIR/services.log" 2>&1 < /dev/null &
    echo $! > "$VETRO_OS_DIR/services.pid"
    echo "Keystone and Heat: installing and starting in the background ($VETRO_OS_DIR/services.log)"
else
    echo "python3 or curl missing: Keystone and Heat are not started, their tests will skip"
fi

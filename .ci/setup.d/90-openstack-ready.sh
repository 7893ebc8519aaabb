# Waits (bounded) for what 05-openstack.sh started and exports the variables the
# OpenStack backend and `vetro agent` tests read. Whatever is not up in time is
# reported and its tests skip.
VETRO_OS_DIR=${VETRO_OS_DIR:-${TMPDIR:-/tmp}/vetro-ci-openstack}
t_wait=$(date +%s)
for _ in $(seq 1 120); do
    (exec 3<>/dev/tcp/127.0.0.1/5672) 2>/dev/null && break
    sleep 1
done
if (exec 3<>/dev/tcp/127.0.0.1/5672) 2>/dev/null; then
    export VETRO_TEST_AMQP_URL=amqp://guest:guest@127.0.0.1:5672/%2f
    echo "RabbitMQ ready: $VETRO_TEST_AMQP_URL"
else
    echo "RabbitMQ did not start: the AMQP tests will skip"
fi
if [ -f "$VETRO_OS_DIR/services.pid" ]; then
    # Installs normally finish while the other setup scripts run; allow 15 minutes.
    for _ in $(seq 1 900); do
        [ -f "$VETRO_OS_DIR/env.sh" ] && break
        kill -0 "$(cat "$VETRO_OS_DIR/services.pid")" 2>/dev/null || break
        sleep 1
    done
    if [ -f "$VETRO_OS_DIR/env.sh" ]; then
        # shellcheck disable=SC1091
        source "$VETRO_OS_DIR/env.sh"
        echo "Keystone ready: $VETRO_TEST_KEYSTONE_URL; Heat ready: $VETRO_TEST_HEAT_URL" \
            "(notifications: ${VETRO_TEST_HEAT_NOTIFICATIONS:-none})"
    else
        echo "Keystone/Heat did not start: their tests will skip. Log:"
        tail -n 30 "$VETRO_OS_DIR/services.log" || true
    fi
    grep '^\[openstack-services\]' "$VETRO_OS_DIR/services.log" || true
fi
echo "waited $(( $(date +%s) - t_wait ))s here; $(( $(date +%s) - ${VETRO_OS_T0:-$t_wait} ))s since 05-openstack.sh"

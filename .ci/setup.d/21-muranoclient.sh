# The real Murano client and schemathesis for the service's end-to-end checks.
"$VETRO_CI_VENV/bin/python" -c 'import muranoclient, schemathesis' 2>/dev/null \
    || ci_pip python-muranoclient==2.8.0 schemathesis==4.32.5
export VETRO_MURANO_CLI="$VETRO_CI_VENV/bin/murano"
export VETRO_SCHEMATHESIS="$VETRO_CI_VENV/bin/schemathesis"

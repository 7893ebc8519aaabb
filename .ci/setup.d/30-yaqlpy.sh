# The Python drop-in for `yaql` (crates/vetro-yaql-py): build its wheel with
# maturin and install it in a venv of its own. The wheel's distribution is
# named `yaql`, so it lives apart from the shared venv, where a tool could
# need the reference package.
ci_pip maturin==1.16.0
export VETRO_YAQLPY_VENV=${VETRO_YAQLPY_VENV:-${TMPDIR:-/tmp}/vetro-yaqlpy-venv}
[ -x "$VETRO_YAQLPY_VENV/bin/python" ] || python3 -m venv "$VETRO_YAQLPY_VENV"
"$VETRO_YAQLPY_VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    pytest==9.2.0 testtools==2.9.1 python-dateutil==4.0.0 PyYAML==6.0.3
rm -rf target/yaqlpy-wheels
"$VETRO_CI_VENV/bin/maturin" build --quiet \
    -m crates/vetro-yaql-py/Cargo.toml -o target/yaqlpy-wheels
"$VETRO_YAQLPY_VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    --force-reinstall --no-deps target/yaqlpy-wheels/yaql-*.whl

# cargo-fuzz and a nightly toolchain for the short fuzzing runs in .ci/checks.d.
if rustup toolchain list | grep -q '^nightly'; then
    command -v cargo-fuzz >/dev/null 2>&1 || cargo install --locked --quiet cargo-fuzz
    export VETRO_FUZZ=1
else
    echo "setup: no nightly toolchain, fuzzing checks will be skipped"
fi

# The short fuzzing runs in .ci/checks.d need a nightly toolchain and
# cargo-fuzz (`cargo install cargo-fuzz`); without them they are skipped.
if rustup toolchain list | grep -q '^nightly' && command -v cargo-fuzz >/dev/null 2>&1; then
    export VETRO_FUZZ=1
else
    echo "setup: nightly toolchain or cargo-fuzz missing, fuzzing checks will be skipped"
fi

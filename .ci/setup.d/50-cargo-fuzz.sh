# The short fuzzing runs in .ci/checks.d/60-fuzz.sh need the nightly toolchain
# and cargo-fuzz. cargo-fuzz is installed from crates.io when it is missing;
# without a nightly toolchain the fuzzing check is skipped with a message.
if rustup toolchain list | grep -q '^nightly'; then
    command -v cargo-fuzz >/dev/null 2>&1 || cargo install --quiet --locked cargo-fuzz
    export VETRO_FUZZ=1
else
    echo "setup: no nightly toolchain, the fuzzing check will be skipped"
fi

# Shared by the scripts in .ci/checks.d (sourced by them, never run alone).
#
# `skip REASON` ends the check successfully with "<check>: skipped (REASON)";
# `vetro_build [--release]` builds the `vetro` binary and sets VETRO to its
# absolute path; PY is the CI virtualenv's Python when there is one.

check_name=$(basename "$0" .sh)
check_name=${check_name#[0-9][0-9]-}

skip() {
    echo "$check_name: skipped ($1)"
    exit 0
}

vetro_build() {
    local profile=debug
    if [ "${1:-}" = --release ]; then
        profile=release
        cargo build -q --release -p vetro-cli
    else
        cargo build -q -p vetro-cli
    fi
    VETRO=$(realpath "${CARGO_TARGET_DIR:-target}/$profile/vetro")
}

PY=python3
if [ -x "${VETRO_CI_VENV:-}/bin/python" ]; then
    PY="$VETRO_CI_VENV/bin/python"
fi

# Debian's murano-agent (and the kombu it brings) for the wire-compatibility
# check .ci/checks.d/27-murano-agent-wire.sh, installed in the background after
# the other Debian packages (one apt transaction at a time). The check calls
# `ci_wait murano-agent`; not root or no such package: the check skips.
if dpkg-query -W -f='${Status}' murano-agent 2>/dev/null | grep -q 'ok installed'; then
    ci_bg murano-agent true
elif [ "$(id -u)" != 0 ]; then
    echo "setup: not root, cannot install murano-agent (the wire check will skip)"
    ci_bg murano-agent true
else
    echo "setup: installing murano-agent in the background"
    ci_bg murano-agent bash -c "ci_wait debian >/dev/null; DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends murano-agent"
fi

# Every Debian package the tests need, installed in one apt transaction in the
# background while the next setup steps and the build run. Scripts that need a
# package call `ci_wait debian` first. Packages already present cost nothing.
VETRO_CI_DEBIAN="postgresql rabbitmq-server chromium chromium-driver"
missing=
for pkg in $VETRO_CI_DEBIAN; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || missing="$missing $pkg"
done
if [ -z "$missing" ]; then
    ci_bg debian true
elif [ "$(id -u)" != 0 ]; then
    echo "setup: not root, cannot install:$missing (the tests that need them will skip)"
    ci_bg debian true
else
    echo "setup: installing in the background:$missing"
    # shellcheck disable=SC2086 # one argument per package
    ci_bg debian bash -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends $missing"
fi

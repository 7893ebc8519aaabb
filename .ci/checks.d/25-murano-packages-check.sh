#!/usr/bin/env bash
# `vetro check` over every package of the community catalog murano-apps, each
# with `--packages` over the whole shared package folder (so its `Require:`
# entries resolve as in a Murano catalog). Every package must check clean but
# the ones listed below, whose own code is broken: each must fail with an
# error that names its bug. Skipped when ../shared/murano-packages (or
# $VETRO_MURANO_PACKAGES) is absent. Bounded: 60 s per package.
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh

PKGS="${VETRO_MURANO_PACKAGES:-../shared/murano-packages}"
if [ ! -d "$PKGS/murano-apps" ]; then
    skip "$PKGS/murano-apps not found"
fi
started=$(date +%s)
vetro_build

# Package folder (under murano-apps) -> a pattern its errors must match.
declare -A broken=(
    [Puppet/MySQLPuppet/package]='error\[class-name\].*MySQLPuppet'
    [PaloAlto/package]='error\[missing-package\].*org\.openstack\.networkingSfc'
    # Their forms read a field "keyPair" that the form names "keypair".
    [Clearwater/package]='error\[ui-reference\].*no field "keyPair"'
    [Windows/ActiveDirectory/package]='error\[ui-reference\].*no field "keyPair"'
)

failed=0
checked=0
# A folder holding manifest.yaml is a package (some apps keep several
# versions under package/v0, v1), unless it sits inside another package
# (a resource file of that name), as the catalog reads them.
inside_package() {
    local d
    d=$(dirname "$1")
    while [ "$d" != "$PKGS/murano-apps" ] && [ "$d" != / ]; do
        [ -f "$d/manifest.yaml" ] && return 0
        d=$(dirname "$d")
    done
    return 1
}
while IFS= read -r manifest; do
    dir=$(dirname "$manifest")
    inside_package "$dir" && continue
    rel=${dir#"$PKGS/murano-apps/"}
    checked=$((checked + 1))
    set +e
    out=$(timeout 60 "$VETRO" check "$dir" --packages "$PKGS" 2>&1)
    rc=$?
    set -e
    want=${broken[$rel]:-}
    if [ -z "$want" ]; then
        if [ "$rc" -ne 0 ]; then
            echo "FAIL $rel: exit $rc"
            echo "$out" | head -20
            failed=1
        fi
    elif [ "$rc" -ne 1 ] || ! grep -Eq "$want" <<<"$out"; then
        echo "FAIL $rel: expected its known bug ($want), got exit $rc"
        echo "$out" | head -20
        failed=1
    fi
done < <(find "$PKGS/murano-apps" -name manifest.yaml | sort)

echo "murano-packages-check: $checked package(s), ${#broken[@]} with known bugs, $(( $(date +%s) - started )) s"
exit "$failed"

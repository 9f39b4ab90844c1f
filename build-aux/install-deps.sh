#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install the Debian 12 packages storpulse needs. Idempotent: when everything is present it does
# not touch apt at all (a second run takes well under a second).
#   build-aux/install-deps.sh          build + run dependencies
#   build-aux/install-deps.sh --package  also what `dpkg-buildpackage -b` needs (debian/control's
#                                      Build-Depends, lintian)
#   build-aux/install-deps.sh --test   also everything the test suite and CI use (this includes
#                                      --package: the vm-package group builds the .deb)
#   build-aux/install-deps.sh --bench  also what bench/ uses beyond that (perf for
#                                      probe-vs-fio --syscalls)
# --test and --bench also install tests/a11y's npm packages (axe-core and ws for the http-page test),
# pinned by its package-lock.json, with `npm ci` into the cache directory
# ${STORPULSE_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/storpulse}: once, and again only when
# the lock file changes (then the tests run offline).
set -euo pipefail

build_pkgs=(meson ninja-build pkg-config gcc libc6-dev
            libsystemd-dev libudev-dev libmicrohttpd-dev libaio-dev libjson-c-dev libdevmapper-dev libinih-dev
            zlib1g-dev libcrypt-dev
            util-linux)
test_pkgs=(fio clang clang-format valgrind cppcheck libclang-rt-14-dev
           qemu-system-x86 busybox-static mdadm lvm2 kmod cpio e2fsprogs python3
           systemd udev prometheus prometheus-alertmanager prometheus-node-exporter chromium curl openssl strace
           python3-jsonschema zsh nodejs)
# docs/man needs scdoc; debian/ needs debhelper (dh 13) and dpkg-dev; lintian checks the result
package_pkgs=(scdoc debhelper dpkg-dev fakeroot lintian bash-completion)
bench_pkgs=(linux-perf)

want=("${build_pkgs[@]}")
case "${1:-}" in
"") ;;
--package) want+=("${package_pkgs[@]}") ;;
--test) want+=("${package_pkgs[@]}" "${test_pkgs[@]}") ;;
--bench) want+=("${package_pkgs[@]}" "${test_pkgs[@]}" "${bench_pkgs[@]}") ;;
*)
        echo "usage: $0 [--package|--test|--bench]" >&2
        exit 2
        ;;
esac

missing=()
for p in "${want[@]}"; do
        status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
        [[ "$status" == ii* ]] || missing+=("$p")
done
# npm is Debian's package `npm`, or part of `nodejs` where that comes from elsewhere (NodeSource)
if [[ " ${want[*]} " == *" nodejs "* ]] && ! command -v npm >/dev/null; then
        missing+=(npm)
fi

if ((${#missing[@]} > 0)); then
        if [[ $(id -u) -ne 0 ]]; then
                echo "install-deps: missing packages: ${missing[*]} (run as root to install them)" >&2
                exit 1
        fi
        echo "install-deps: installing ${missing[*]}" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# tests/a11y's npm packages: the cache holds a copy of the lock file it was installed from, so an
# unchanged lock file costs one cmp and no network.
if [[ "${1:-}" == --test || "${1:-}" == --bench ]]; then
        a11y="$(cd "$(dirname "$0")/.." && pwd)/tests/a11y"
        cache=${STORPULSE_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/storpulse}
        if ! cmp -s "$a11y/package-lock.json" "$cache/package-lock.json" ||
                [[ ! -d "$cache/node_modules" ]]; then
                echo "install-deps: npm ci (tests/a11y) into $cache" >&2
                mkdir -p "$cache"
                cp "$a11y/package.json" "$a11y/package-lock.json" "$cache/"
                npm ci --prefix "$cache" --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
        fi
fi

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
set -euo pipefail

build_pkgs=(meson ninja-build pkg-config gcc libc6-dev
            libsystemd-dev libudev-dev libmicrohttpd-dev libaio-dev libjson-c-dev libdevmapper-dev libinih-dev
            zlib1g-dev libcrypt-dev
            util-linux)
test_pkgs=(fio clang clang-format valgrind cppcheck libclang-rt-14-dev
           qemu-system-x86 busybox-static mdadm lvm2 kmod cpio e2fsprogs python3
           systemd udev prometheus prometheus-node-exporter chromium curl openssl strace
           python3-jsonschema zsh)
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

if ((${#missing[@]} == 0)); then
        exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
        echo "install-deps: missing packages: ${missing[*]} (run as root to install them)" >&2
        exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

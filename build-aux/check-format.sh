#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fail if any C file differs from .clang-format (clang-format 14). --fix rewrites them.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.c' '*.h')
if [[ "${1:-}" == "--fix" ]]; then
        clang-format -i "${files[@]}"
        exit 0
fi
clang-format --dry-run --Werror "${files[@]}"

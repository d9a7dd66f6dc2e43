#!/usr/bin/env bash
# Usage: check_format.sh SOURCE_DIR
#
# Fails when a C++ file under src/ io/ decomposition/ postproc/ tests/ is not as clang-format
# (with the repository's .clang-format) would write it, listing the files, the start of the
# first one's difference, and the command that fixes them. Without clang-format it reports itself
# skipped (status 77), except under CI (CI=true), where that is a failure.
set -u
cd "$1" || exit 1
if ! command -v clang-format > /dev/null 2>&1; then
  if [ "${CI:-}" = true ]; then
    echo "FAIL: clang-format not found (Debian package clang-format); CI=true requires it" >&2
    exit 1
  fi
  echo "SKIP: clang-format not found (Debian package clang-format): the format is unchecked"
  exit 77
fi
clang-format --version

mapfile -t files < <(find src io decomposition postproc tests -type f \( -name '*.cpp' -o -name '*.hpp' \) | sort)
# One clang-format for every file (a process per file took 10 s): each difference is reported
# as "FILE:LINE:COLUMN: error: code should be clang-formatted".
mapfile -t unformatted < <(clang-format --dry-run --Werror "${files[@]}" 2>&1 |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)

if [ ${#unformatted[@]} -gt 0 ]; then
  echo "FAIL: not formatted by clang-format (.clang-format): ${unformatted[*]}" >&2
  clang-format "${unformatted[0]}" | diff -u "${unformatted[0]}" - | head -n 40 >&2
  echo "fix with: clang-format -i ${unformatted[*]}" >&2
  exit 1
fi
echo "PASS"

#!/usr/bin/env bash
# Usage: check_layering.sh [SOURCE_DIR]   (default: the checkout this script is in)
#
# The folders depend one way: src -> io -> decomposition, and src -> decomposition; the
# post-processing tools (postproc/) use io/ and decomposition/ but not the physics in src/,
# and nothing in the simulator includes postproc/. Scans the #include lines and fails,
# printing file:line and the include, where one runs against these arrows.
set -euo pipefail

root=${1:-$(dirname "$0")/..}
cd "$root"

violations=0
# check FOLDER FORBIDDEN...: FOLDER's files must include nothing from the FORBIDDEN folders.
check() {
  local folder=$1
  shift
  local forbidden names
  forbidden=$(IFS='|'; echo "$*")
  names=$(printf '%s/ or ' "$@")
  [ -d "$folder" ] || { echo "check_layering: no folder $root/$folder" >&2; exit 2; }
  # "src/x.hpp", "../src/x.hpp" and <src/x.hpp> all resolve against the source root.
  local pattern="^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<](\.\./)*($forbidden)/"
  local file line text
  while IFS=: read -r file line text; do
    echo "$file:$line: $text  ($folder/ must not include from ${names% or })"
    violations=$((violations + 1))
  done < <(grep -rnE "$pattern" "$folder" --include='*.hpp' --include='*.cpp' \
             --include='*.h' --include='*.cc' || true)
}

check decomposition src io postproc
check io src postproc
check src postproc
check postproc src

if [ "$violations" -gt 0 ]; then
  echo "check_layering: $violations include(s) against the layering" \
       "(src -> io -> decomposition, src -> decomposition; tests/README.md)" >&2
  exit 1
fi
echo "check_layering: every include runs along the arrows"

#!/usr/bin/env bash
# Usage: check_layering.sh [SOURCE_DIR]   (default: the checkout this script is in)
#
# The folders depend one way (src/README.md):
#   decomposition <- io <- src/grid <- src/particles <- src/pressure <- src/sand <- src/transfer,
#   src/wet <- src/particles, and src/driver above them all;
# the post-processing tools (postproc/) use io/ and decomposition/ but not the physics in
# src/, and nothing in the simulator includes postproc/. The physics folders read the case
# through io/'s description of it (case_config.hpp, and triangle_mesh.hpp for mesh shapes),
# never its files, frames or checkpoints: those are the driver's. The physics owns its
# parameters (src/sand/sand_parameters.hpp, src/wet/wet_parameters.hpp): io/ may include
# those headers alone, to read and validate them. The build enforces the
# folder arrows too (a folder's headers are not found where its library is not linked); this
# script names the include that runs against them. Prints file:line and the include, and
# fails, for each.
set -euo pipefail

root=${1:-$(dirname "$0")/..}
cd "$root"

violations=0
# check FOLDER FORBIDDEN...: FOLDER's files must include nothing from the FORBIDDEN folders
# (or files: a FORBIDDEN entry is a path prefix).
check() {
  local folder=$1
  shift
  local forbidden names
  forbidden=$(IFS='|'; echo "$*")
  names=$(printf '%s or ' "$@" | tr -d '\\')
  [ -d "$folder" ] || { echo "check_layering: no folder $root/$folder" >&2; exit 2; }
  # "src/x.hpp", "../src/x.hpp" and <src/x.hpp> all resolve against the source root.
  local pattern="^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<](\.\./)*($forbidden)"
  local file line text
  while IFS=: read -r file line text; do
    echo "$file:$line: $text  ($folder/ must not include ${names% or })"
    violations=$((violations + 1))
  done < <(grep -rnE "$pattern" "$folder" --include='*.hpp' --include='*.cpp' \
             --include='*.h' --include='*.cc' | grep -vE "${allowed:-^$}" || true)
}

# io/'s files other than the case description: what only the driver may include.
io_internals=$(cd io && ls *.hpp | grep -vE '^(case_config|triangle_mesh)\.hpp$' |
               sed 's|^|io/|; s|\.|\\.|g')

check decomposition src/ io/ postproc/
# The physics folders' parameters (src/*/*_parameters.hpp) are io/'s to read and validate.
allowed='"src/[a-z_]+/[a-z_]+_parameters\.hpp"' check io src/ postproc/
check src postproc/
check postproc src/
check src/grid src/particles/ src/pressure/ src/sand/ src/transfer/ src/wet/ src/driver/
check src/particles src/pressure/ src/sand/ src/transfer/ src/wet/ src/driver/
check src/pressure src/sand/ src/transfer/ src/wet/ src/driver/
check src/sand src/transfer/ src/wet/ src/driver/
check src/transfer src/wet/ src/driver/
check src/wet src/pressure/ src/sand/ src/transfer/ src/driver/
# shellcheck disable=SC2086  # one path prefix per word
for physics in src/grid src/particles src/pressure src/sand src/transfer src/wet; do
  check "$physics" $io_internals
done

if [ "$violations" -gt 0 ]; then
  echo "check_layering: $violations include(s) against the layering (src/README.md)" >&2
  exit 1
fi
echo "check_layering: every include runs along the arrows"

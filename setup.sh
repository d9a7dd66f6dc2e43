#!/usr/bin/env bash
# Installs dunesim's dependencies (Debian 12 packages), builds it, and then either runs a
# case on 2 local ranks or runs the whole test suite.
#
#   ./setup.sh run [CASE]   install, build, run CASE (default cases/dam_break.toml)
#   ./setup.sh test         install, build, run the default tier of tests (minutes: everything
#                           that guards correctness at small size)
#   ./setup.sh validate     install, build, run the validation tier (the physics against
#                           published measurements and laws: heaps, collapses, Rankine, ...)
#   ./setup.sh build        install and build only
#   ./setup.sh sanitize     install, build with AddressSanitizer and UndefinedBehaviorSanitizer
#                           in build-asan, run every test under them (tests/README.md)
set -euo pipefail
cd "$(dirname "$0")"

action=${1:-build}
case_file=${2:-cases/dam_break.toml}
if [ "$action" = sanitize ]; then
  build_dir=${DUNESIM_BUILD_DIR:-build-asan}
  cmake_options=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DDUNESIM_SANITIZE=ON
                 -DDUNESIM_BUILD_BENCHMARKS=OFF)
else
  build_dir=${DUNESIM_BUILD_DIR:-build}
  cmake_options=(-DCMAKE_BUILD_TYPE=Release)
fi

packages=(
  build-essential cmake ccache pkg-config clang-format
  libopenmpi-dev openmpi-bin
  libpetsc-real3.18-dev
  libhdf5-openmpi-dev hdf5-tools
  libgtest-dev libbenchmark-dev
  libtomlplusplus-dev libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev
  python3-h5py python3-numpy python3-matplotlib ffmpeg
  libopenvdb-dev python3-openvdb
  paraview paraview-dev python3-paraview xvfb
  slurm-wlm munge
)
# node and npm make the bunny mesh. An npm that came with another nodejs build counts: NodeSource's
# nodejs bundles npm and conflicts with Debian's npm package.
if ! command -v npm >/dev/null 2>&1; then packages+=(nodejs npm); fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"
fi

# The Stanford bunny for the *_bunny cases: made from the npm package, not committed.
cases/meshes/fetch_bunny.sh

# Open MPI refuses to start as root unless told that it is intended (containers, CI).
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

cmake -S . -B "$build_dir" "${cmake_options[@]}"
cmake --build "$build_dir" -j "$(nproc)"

case "$action" in
  build) ;;
  run)
    mpiexec -n 2 --oversubscribe "$build_dir/dunesim" run "$case_file"
    ;;
  test | validate)
    # The tiers are ctest labels (tests/README.md): the default tier is every test without
    # the label "validation".
    tier=(-LE validation) tier_name=default
    if [ "$action" = validate ]; then tier=(-L validation) tier_name=validation; fi
    started=$(date +%s)
    status=0
    ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" --timeout 1500 "${tier[@]}" ||
      status=$?
    echo "setup: the $tier_name tier took $(( $(date +%s) - started )) s of test time"
    exit "$status"
    ;;
  sanitize)
    # AddressSanitizer reports land in $reports, UBSan's in the tests' output, which ctest
    # keeps in LastTest.log (tests/CMakeLists.txt says why): any report fails the run, even
    # one from a test that passed.
    reports="$build_dir/sanitizer_reports"
    test_log="$build_dir/Testing/Temporary/LastTest.log"
    rm -f "$reports"/*
    started=$(date +%s)
    status=0
    ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" --timeout 1200 || status=$?
    echo "setup: the sanitizer suite took $(( $(date +%s) - started )) s"
    if [ -n "$(ls -A "$reports")" ]; then
      cat "$reports"/*
      echo "setup: AddressSanitizer reports above (files in $reports)" >&2
      status=1
    fi
    if grep -n -e "runtime error:" -e "ERROR: AddressSanitizer" "$test_log"; then
      echo "setup: sanitizer reports in the tests' output above ($test_log)" >&2
      status=1
    fi
    exit "$status"
    ;;
  *)
    echo "usage: $0 run [CASE] | test | validate | sanitize | build" >&2
    exit 2
    ;;
esac

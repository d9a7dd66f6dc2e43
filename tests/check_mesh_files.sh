#!/usr/bin/env bash
# Usage: check_mesh_files.sh DUNESIM_EXE
#
# A case's mesh files must give every rank the same verdict. `dunesim run` with a mesh path that
# is a directory, or a mesh cut off in the middle of a line, must stop on 2 ranks (the first
# also on 1), every rank with status 2 and a message naming the file. Then the ranks are given
# working directories of their own, so that the mesh path (relative to the case file, here
# relative to each rank's directory) names another file on each, as on nodes that do not share a
# file system: rank 0 sees the truncated mesh, rank 1 an intact one. When every rank read the
# mesh itself, rank 0 stopped while rank 1 went on into the run's collectives and hung. With
# rank 0 reading for all, the reverse (a good mesh on rank 0, a directory on rank 1) runs.
set -u
. "$(dirname "$0")/bad_input_common.sh"
take_dunesim_argument "$@"
cube=$(cd "$(dirname "$0")" && pwd)/meshes/cube.obj
enter_temporary_directory

# water_in_mesh_case FILE: a 0.2 m box with water filling the mesh mesh.obj, the unit cube
# scaled to 0.1 m.
water_in_mesh_case() {
  cat > "$1" <<'EOF_CASE'
[domain]
size = [0.2, 0.2, 0.2]
cell_size = 0.025
[time]
end = 0.1
[[material]]
name = "water"
kind = "water"
[[source]]
material = "water"
shape = "mesh"
file = "mesh.obj"
scale = 0.1
EOF_CASE
}

# mesh.obj is a directory.
mkdir -p directory
water_in_mesh_case directory/case.toml
mkdir directory/mesh.obj
expect_failure 2 "key 'source[0].file': mesh directory/mesh.obj: cannot open: it is a directory" \
  "$exe" run directory/case.toml --quiet --output "$work/out_directory"

# mesh.obj stops in the middle of its last face: "f 2 7".
mkdir -p truncated
water_in_mesh_case truncated/case.toml
head -c -3 "$cube" > truncated/mesh.obj
expect_failure 2 "key 'source[0].file': mesh truncated/mesh.obj: line 21:" \
  "$exe" run truncated/case.toml --quiet --output "$work/out_truncated"

# in_rank_directory COMMAND... runs COMMAND in rank<N>, N the MPI rank (Open MPI tells it),
# so that rank<N>/mesh.obj is what rank N sees as the mesh.
in_rank_directory=(sh -c 'cd "rank$OMPI_COMM_WORLD_RANK" && exec "$@"' sh)
mkdir -p rank0 rank1
water_in_mesh_case rank0/case.toml
head -c -3 "$cube" > rank0/mesh.obj
cp "$cube" rank1/mesh.obj
expect_failure 2 "key 'source[0].file': mesh mesh.obj: line 21:" \
  "${in_rank_directory[@]}" "$exe" run case.toml --quiet --output "$work/out_ranks"
[ ! -e out_ranks ] || fail "a run whose mesh rank 0 could not read wrote output"

rm -rf rank0/mesh.obj rank1/mesh.obj
cp "$cube" rank0/mesh.obj
mkdir rank1/mesh.obj
output=$(timeout -k 10 "$(scaled 60)" mpiexec -n 2 --oversubscribe \
  "${in_rank_directory[@]}" "$exe" run case.toml --quiet --max-steps 1 --output "$work/out_good" 2>&1) ||
  fail "a run whose mesh only rank 0 can read failed: $output"
[ -e out_good/case_000000.h5 ] || fail "the run with rank 0's mesh wrote no first frame"
echo "PASS"

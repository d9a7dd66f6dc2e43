#!/usr/bin/env bash
# Usage: check_full_disk.sh DUNESIM_EXE
#
# A full disk, played by a file size limit: the ranks run with SIGXFSZ ignored under
# `ulimit -f`, so a write past the limit fails (EFBIG) as it would on a full disk, instead of
# killing the rank. A run restarted from a checkpoint under the limit must end on 1 and 2
# ranks, every rank with status 3 and a message naming the file, when the next frame does
# not fit, and again when the next checkpoint does not fit (with --no-frames). The frames,
# XDMF series and checkpoint written before must be left as they were, no partial file may
# remain, and the checkpoint must still restart the run.
#
# Without agreement on every collective write, 2 ranks hung in HDF5 (one rank left a failed
# write, the other went on into the next), and 1 rank crashed in MPI_Finalize after HDF5
# failed to close the file.
set -u
. "$(dirname "$0")/bad_input_common.sh"
take_dunesim_argument "$@"
enter_temporary_directory

# 6 MiB: above Open MPI's 4 MiB shared memory segment, which each rank creates as a file
# under the same limit, and below a frame (12 MB) or a checkpoint (8 MB) of this case.
# bash's ulimit counts KiB (dash's counts 512-byte blocks).
with_file_limit=(bash -c 'trap "" XFSZ; ulimit -f 6144 && exec "$@"' bash)

# A box full of water (write_full_tank, 150,000 particles), a frame after every step and a
# checkpoint after every step.
write_full_tank full.toml
cat >> full.toml <<'EOF_CASE'
[output]
directory = "out"
interval = 0
[checkpoint]
interval_steps = 1
keep = 2
EOF_CASE
mpiexec -n 2 --oversubscribe "$exe" run full.toml --max-steps 1 --quiet ||
  fail "the run that writes the first frames and checkpoint failed"
earlier="out/full_000000.h5 out/full_000001.h5 out/full.xmf out/checkpoints/checkpoint_000000001.h5
         out/checkpoints/checkpoint_latest"
# shellcheck disable=SC2086
sha256sum $earlier > earlier.sha256 || fail "the first run did not write: $earlier"

# What a failed write must leave: the earlier files as they were, nothing new.
expect_earlier_output_intact() {  # WHAT
  sha256sum --quiet -c earlier.sha256 || fail "$1: earlier output changed"
  local left
  left=$(find out -name 'full_000002.h5*' -o -name 'checkpoint_000000002.h5*')
  [ -z "$left" ] || fail "$1: a partial file remains: $left"
}

expect_failure 3 "out/full_000002.h5: cannot write it: it needs about" \
  "${with_file_limit[@]}" "$exe" run full.toml --restart latest --max-steps 2 --quiet
expect_earlier_output_intact "a frame past the file size limit"

expect_failure 3 "out/checkpoints/checkpoint_000000002.h5: cannot write it: it needs about" \
  "${with_file_limit[@]}" "$exe" run full.toml --restart latest --max-steps 2 --no-frames \
  --quiet
expect_earlier_output_intact "a checkpoint past the file size limit"

# The checkpoint before the failures restarts the run, which writes the next one.
mpiexec -n 2 --oversubscribe "$exe" run full.toml --restart latest --max-steps 2 --no-frames \
  --quiet || fail "the checkpoint written before the failures does not restart"
[ "$(cat out/checkpoints/checkpoint_latest)" = checkpoint_000000002.h5 ] ||
  fail "the restarted run did not write checkpoint_000000002.h5"
echo "PASS"

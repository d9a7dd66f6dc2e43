#!/usr/bin/env bash
# Usage: check_full_disk.sh DUNESIM_EXE
#
# A full disk, played by a file size limit: the ranks run with SIGXFSZ ignored under
# `ulimit -f`, so a write past the limit fails (EFBIG) as it would on a full disk, instead of
# killing the rank. A run restarted from a checkpoint under the limit must end on 1 and 2
# ranks, every rank with status 3 and a message naming the file, when the next frame does
# not fit, and again when the next checkpoint does not fit (with --no-frames). The frames,
# XDMF series and checkpoint written before must be left as they were, no partial file may
# remain, and the checkpoint must still restart the run. The room check's estimate must let
# a small run write its frame and checkpoint under a limit of 1.3 times its frame's size, and
# a read-only output directory under the limit must be reported on every rank as "permission
# denied", not as a lack of room.
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

# The room check's estimate is tight: a small run (2,048 particles: frames of 176 KB and a
# smaller checkpoint, which an estimate with 1 MiB to spare refused) fits under a limit of 1.3
# times its frame's size. Open MPI's 4 MiB shared-memory file would not: its ranks talk over
# TCP here.
write_water_case small.toml
printf '[checkpoint]\ninterval_steps = 1\n' >> small.toml
mpiexec -n 2 --oversubscribe "$exe" run small.toml --output small --max-steps 1 --quiet ||
  fail "the small run without a file size limit failed"
frame_bytes=$(stat -c %s small/small_000000.h5)
tight_limit=(bash -c 'trap "" XFSZ; ulimit -f "$0" && exec "$@"' $((frame_bytes * 13 / 10 / 1024)))
mpiexec -n 2 --oversubscribe --mca btl self,tcp "${tight_limit[@]}" "$exe" run small.toml \
  --output tight --max-steps 1 --quiet ||
  fail "a run under a file size limit of 1.3 times its $frame_bytes-byte frame failed"
for written in tight/small_000000.h5 tight/checkpoints/checkpoint_000000001.h5; do
  [ -s "$written" ] || fail "the run under 1.3 times its frame's size did not write $written"
done

# A read-only output directory on a full disk is reported as read-only: that is what to fix
# first. Root ignores a directory's permissions, so as root mpiexec and the ranks run as
# nobody (setpriv, util-linux), who may read the build (a world-readable tree) and this
# directory but not write into read_only/. (An immutable directory, chattr +i, refuses root
# too, but needs CAP_LINUX_IMMUTABLE and an ext4-like file system, and is left behind
# undeletable if the script dies.)
mkdir read_only
chmod 555 read_only
if [ "$(id -u)" = 0 ]; then
  chmod 755 "$work"
  expect_failure_launcher=(env HOME="$work" setpriv --reuid=nobody --regid=nogroup
    --clear-groups)
fi
expect_failure 3 "read_only/full_000000.h5: cannot write into read_only: permission denied" \
  "${with_file_limit[@]}" "$exe" run full.toml --output read_only --max-steps 1 --quiet
expect_failure_launcher=()
[ -z "$(ls -A read_only)" ] || fail "files written into the read-only directory: $(ls read_only)"
echo "PASS"

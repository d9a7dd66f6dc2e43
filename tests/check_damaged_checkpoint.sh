#!/usr/bin/env bash
# Usage: check_damaged_checkpoint.sh DUNESIM_EXE
#
# Restarts from checkpoints damaged in one way each (damage_checkpoint.py): a per-rank table
# that does not add up, a byte flipped on disk, a NaN position, a position outside the
# domain, a NaN pressure and a stored case text that does not parse. Each restart must end
# on 2 ranks (the first also on 1), every rank with status 3, saying "FILE: damaged checkpoint: ..." and
# what is wrong. The checkpoint was written by 2 ranks and holds 150,000 particles, so that
# particles/x has two chunks and, on 2 ranks, only rank 1 reads the damaged one.
set -u
. "$(dirname "$0")/bad_input_common.sh"
take_dunesim_argument "$@"
damage="/usr/bin/python3 $(cd "$(dirname "$0")" && pwd)/damage_checkpoint.py"
enter_temporary_directory

# A box full of water (write_full_tank) with a checkpoint after every step.
write_full_tank full.toml
cat >> full.toml <<'EOF_CASE'
[output]
directory = "out"
[checkpoint]
interval_steps = 1
EOF_CASE
mpiexec -n 2 --oversubscribe "$exe" run full.toml --max-steps 1 --no-frames --quiet ||
  fail "the run that writes the checkpoint failed"
good=out/checkpoints/checkpoint_000000001.h5
[ -f "$good" ] || fail "no checkpoint $good"

# Restarts from a damaged copy: status 3 on every rank, and the expected words.
expect_damage() {  # KIND TEXT
  $damage "$good" "$1.h5" "$1" || fail "damage_checkpoint.py $1 failed"
  expect_failure 3 "$1.h5: damaged checkpoint: $2" \
    "$exe" run full.toml --restart "$1.h5" --max-steps 2 --no-frames --quiet
}

expect_damage rank-count "the per-rank table ('ranks/particle_count', 'ranks/particle_offset') does not add up: rank 1 holds"
expect_damage rank-offset "the per-rank table ('ranks/particle_count', 'ranks/particle_offset') does not add up: rank 1's particles start at row"
expect_damage flip-x "'/particles/x' fails its checksum"
expect_damage nan-x "'particles/x' holds nan in row 5"
expect_damage far-x "a particle lies outside the domain [0, 0.2] x [0, 0.2] x [0, 0.24] m: id"
expect_damage nan-pressure "'grid/pressure' holds nan in cell (0, 0, 0)"
expect_damage case-text "the case text stored in it (read from full.toml) is not a valid case"

# The undamaged checkpoint still restarts.
mpiexec -n 2 --oversubscribe "$exe" run full.toml --restart "$good" --max-steps 2 --no-frames \
  --quiet || fail "the undamaged checkpoint does not restart"
echo "PASS"

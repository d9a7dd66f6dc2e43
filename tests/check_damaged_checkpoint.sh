#!/usr/bin/env bash
# Usage: check_damaged_checkpoint.sh DUNESIM_EXE
#
# Restarts from checkpoints damaged in one way each (damage_checkpoint.py): a per-rank table
# that does not add up, a byte flipped on disk, a NaN position, a position outside the
# domain, a NaN pressure, a stored case text that does not parse, and in a checkpoint of
# APIC water a NaN affine velocity and affine rows of the wrong width. Each restart must end
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

# The same tank of APIC water, whose particles carry the affine velocity (nine columns).
sed 's/^kind = "water"$/kind = "water"\ntransfer = "apic"/; s/^directory = "out"$/directory = "out_apic"/' \
  full.toml > apic.toml
grep -q '^transfer = "apic"$' apic.toml || fail "apic.toml lacks its transfer"
mpiexec -n 2 --oversubscribe "$exe" run apic.toml --max-steps 1 --no-frames --quiet ||
  fail "the APIC run that writes the checkpoint failed"
good_apic=out_apic/checkpoints/checkpoint_000000001.h5
[ -f "$good_apic" ] || fail "no checkpoint $good_apic"

# Restarts of CASE from a damaged copy of GOOD: status 3 on every rank, and the expected words.
expect_damage_of() {  # CASE GOOD KIND TEXT
  $damage "$2" "$3.h5" "$3" || fail "damage_checkpoint.py $3 failed"
  expect_failure 3 "$3.h5: damaged checkpoint: $4" \
    "$exe" run "$1" --restart "$3.h5" --max-steps 2 --no-frames --quiet
}
expect_damage() { expect_damage_of full.toml "$good" "$@"; }  # KIND TEXT

expect_damage rank-count "the per-rank table ('ranks/particle_count', 'ranks/particle_offset') does not add up: rank 1 holds"
expect_damage rank-offset "the per-rank table ('ranks/particle_count', 'ranks/particle_offset') does not add up: rank 1's particles start at row"
expect_damage flip-x "'/particles/x' fails its checksum"
expect_damage nan-x "'particles/x' holds nan in row 5"
expect_damage far-x "a particle lies outside the domain [0, 0.2] x [0, 0.2] x [0, 0.24] m: id"
expect_damage nan-pressure "'grid/pressure' holds nan in cell (0, 0, 0)"
expect_damage case-text "the case text stored in it (read from full.toml) is not a valid case"
expect_damage_of apic.toml "$good_apic" nan-affine "'particles/affine' holds nan in row 7"
expect_damage_of apic.toml "$good_apic" affine-columns \
  "'particles/affine' does not have particle_count = 150000 rows of 9 values"

# The undamaged checkpoint still restarts.
mpiexec -n 2 --oversubscribe "$exe" run full.toml --restart "$good" --max-steps 2 --no-frames \
  --quiet || fail "the undamaged checkpoint does not restart"
echo "PASS"

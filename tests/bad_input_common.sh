# Sourced by the tests that give dunesim hostile input (files, options, signals). It sources
# tests/timeouts.sh, so they have `scaled` as well.
#
# take_dunesim_argument "$@"
#   Sets `exe` to the script's one argument, the dunesim executable.
# enter_temporary_directory
#   Makes a temporary directory the working directory; it is removed on exit.
# write_water_case FILE [CELL_SIZE]
#   Writes a valid case: a 0.2 m box half full of water, 0.1 s, frames into out/; the cells
#   are 0.025 m (8 x 8 x 8) unless CELL_SIZE says otherwise.
# expect_failure STATUS TEXT COMMAND...
#   Runs COMMAND under mpiexec on 2 ranks (a script's first call also on 1 rank: the error path
#   of a lone rank once, the ranks' agreement every time). Passes only if each run ends within
#   `scaled 60` s, prints TEXT, and every rank exits with STATUS: a rank that hangs, or exits 0
#   while another reports the error, is the kind of bug these tests guard against.
#   mpiexec runs under the command in the array `expect_failure_launcher` (empty: none), e.g.
#   setpriv to run it as another user.

. "$(dirname "${BASH_SOURCE[0]}")/timeouts.sh"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

take_dunesim_argument() {
  if [ "$#" -ne 1 ]; then
    echo "usage: $0 DUNESIM_EXE" >&2
    exit 2
  fi
  exe=$1
}

enter_temporary_directory() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/dunesim_bad_input_XXXXXX") || exit 1
  trap 'rm -rf "$work"' EXIT
  cd "$work" || exit 1
}

expect_failure_ranks="1 2"
expect_failure_launcher=()
expect_failure() {
  local status=$1 text=$2 limit ranks output exit_code got
  shift 2
  limit=$(scaled 60)
  for ranks in $expect_failure_ranks; do
    # Each rank reports its own exit status, which mpiexec alone would not show.
    output=$(timeout -k 10 "$limit" "${expect_failure_launcher[@]}" mpiexec -n "$ranks" \
      --oversubscribe sh -c '"$@"; echo "rank-exit $?"' sh "$@" 2>&1)
    exit_code=$?
    printf '%s\n' "$output"
    if [ "$exit_code" -eq 124 ] || [ "$exit_code" -eq 137 ]; then
      fail "$ranks rank(s): timed out after $limit s: $*"
    fi
    printf '%s\n' "$output" | grep -qF -- "$text" ||
      fail "$ranks rank(s): the output lacks: $text"
    got=$(printf '%s\n' "$output" | grep -cx "rank-exit $status" || true)
    [ "$got" -eq "$ranks" ] ||
      fail "$ranks rank(s): expected every rank to exit with $status: $*"
  done
  expect_failure_ranks=2
}

# write_water_box FILE HEIGHT CELL_SIZE WATER_TOP: a 0.2 x 0.2 x HEIGHT m box with water up
# to WATER_TOP, without [output] or [checkpoint].
write_water_box() {
  cat > "$1" <<EOF_CASE
[domain]
size = [0.2, 0.2, $2]
cell_size = $3
[time]
end = 0.1
[[material]]
name = "water"
kind = "water"
[[source]]
material = "water"
shape = "block"
min = [0.0, 0.0, 0.0]
max = [0.2, 0.2, $4]
EOF_CASE
}

# write_full_tank FILE: a 0.2 x 0.2 x 0.24 m box full of water at 0.008 m cells (25 x 25 x 30
# cells, 150,000 particles), without [output] or [checkpoint]: the caller appends those.
write_full_tank() { write_water_box "$1" 0.24 0.008 0.24; }

# write_water_case FILE [CELL_SIZE]: a 0.2 m box half full of water (0.025 m cells unless
# given), writing its frames to out/.
write_water_case() {
  write_water_box "$1" 0.2 "${2:-0.025}" 0.1
  printf '[output]\ndirectory = "out"\n' >> "$1"
}

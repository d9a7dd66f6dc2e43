#!/usr/bin/env bash
# Usage: check_mpi_test_main.sh TEST_MPI_TEST_MAIN_EXE
#
# The MPI test binaries' main() (mpi_test_main.cpp) on 2 ranks: GoogleTest's report comes
# from rank 0 alone, and a test that fails on rank 1 only is still reported (rank 1's
# message, and rank 0 naming the test and the rank) and fails every rank.
set -u
. "$(dirname "$0")/bad_input_common.sh"
take_dunesim_argument "$@"  # the test binary, here

# Each rank reports its own exit status, which mpiexec alone would not show.
run_on_two_ranks() {
  timeout -k 10 "$(scaled 60)" mpiexec -n 2 --oversubscribe -x DUNESIM_FAIL_ON_RANK \
    sh -c '"$@"; echo "rank-exit $?"' sh "$exe" --gtest_color=no 2>&1
}

output=$(DUNESIM_FAIL_ON_RANK= run_on_two_ranks)
printf '%s\n' "$output"
[ "$(printf '%s\n' "$output" | grep -c '^\[  PASSED  \] 2 tests')" -eq 1 ] ||
  fail "expected one GoogleTest summary (rank 0's), not one per rank"
[ "$(printf '%s\n' "$output" | grep -cx 'rank-exit 0')" -eq 2 ] ||
  fail "expected both ranks to pass"

output=$(DUNESIM_FAIL_ON_RANK=1 run_on_two_ranks)
printf '%s\n' "$output"
printf '%s\n' "$output" | grep -qF "failure asked for on rank 1" ||
  fail "rank 1's failure message was not printed"
printf '%s\n' "$output" | grep -qF "[  FAILED  ] MpiTestMain.FailsOnlyOnTheRankAsked on rank 1" ||
  fail "rank 0 did not name the test that failed on rank 1"
[ "$(printf '%s\n' "$output" | grep -cx 'rank-exit 1')" -eq 2 ] ||
  fail "expected a failure on rank 1 to fail both ranks"
echo "PASS"

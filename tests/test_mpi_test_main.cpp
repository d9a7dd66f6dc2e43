// The test binaries' main() (mpi_test_main.cpp) under a failure on one rank only:
// check_mpi_test_main.sh runs this suite with DUNESIM_FAIL_ON_RANK set and requires the
// failure to be printed and to fail every rank. Without the variable every test passes.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <string>

TEST(MpiTestMain, FailsOnlyOnTheRankAsked) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* rank_to_fail = std::getenv("DUNESIM_FAIL_ON_RANK");
  if (rank_to_fail && std::to_string(rank) == rank_to_fail)
    ADD_FAILURE() << "failure asked for on rank " << rank;
}

TEST(MpiTestMain, Passes) { SUCCEED(); }

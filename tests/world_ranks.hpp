// The ranks of MPI_COMM_WORLD, for tests that depend on how many there are.
#pragma once
#include <gtest/gtest.h>
#include <mpi.h>

namespace dunesim::test {

inline int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

inline int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

}  // namespace dunesim::test

// For tests that compare a run on all ranks with the same problem solved on one rank
// (MPI_COMM_SELF): in a one-rank job both are the same one-rank run, and the comparison
// would pass whatever the decomposition does. Skips the test there, with the reason.
#define SKIP_IN_A_ONE_RANK_JOB()                                                   \
  if (::dunesim::test::world_size() != 1) {                                       \
  } else                                                                          \
    GTEST_SKIP() << "one rank: the run and its one-rank reference would be the "  \
                    "same run; this test runs at 2 and 4 ranks"

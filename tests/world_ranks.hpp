// Skipping the tests that need more than one rank of MPI_COMM_WORLD.
#pragma once
#include <gtest/gtest.h>
#include <mpi.h>

#include "tests/world.hpp"

// For tests that compare a run on all ranks with the same problem solved on one rank
// (MPI_COMM_SELF): in a one-rank job both are the same one-rank run, and the comparison
// would pass whatever the decomposition does. Skips the test there, with the reason.
#define SKIP_IN_A_ONE_RANK_JOB()                                                 \
  if (::dunesim::test::world_size() != 1) {                                      \
  } else                                                                         \
    GTEST_SKIP() << "one rank: the run and its one-rank reference would be the " \
                    "same run; this test runs at 2 and 4 ranks"

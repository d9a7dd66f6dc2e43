// main() for GoogleTest binaries that run under mpiexec: MPI and PETSc are initialised
// once around all tests. Only rank 0 prints GoogleTest's progress and summary; another rank
// prints nothing but its failed assertions, as they happen (so that a rank that fails and
// then leaves the others waiting in a collective has still said why), and at the end rank 0
// names every test that failed on any rank. A test that fails on any rank fails the run on
// every rank.
#include <gtest/gtest.h>
#include <mpi.h>
#include <petscsys.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

// Prints a failed assertion of this rank: "[rank 1] file:line: Failure" and the message.
class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  // Kept here: UnitTest::current_test_info() would wait for the lock that GoogleTest holds
  // while it reports a result.
  void OnTestStart(const ::testing::TestInfo& test) override {
    test_name_ = std::string(test.test_suite_name()) + "." + test.name();
  }
  void OnTestEnd(const ::testing::TestInfo&) override { test_name_ = "(outside any test)"; }
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure in %s\n%s\n", rank_,
                 result.file_name() ? result.file_name() : "unknown file", result.line_number(),
                 test_name_.c_str(), result.message());
    std::fflush(stderr);
  }

 private:
  int rank_;
  std::string test_name_ = "(outside any test)";
};

// "Suite.Test\n" for each test that failed on this rank.
std::string failed_tests() {
  std::string names;
  const ::testing::UnitTest& tests = *::testing::UnitTest::GetInstance();
  for (int s = 0; s < tests.total_test_suite_count(); ++s) {
    const ::testing::TestSuite& suite = *tests.GetTestSuite(s);
    for (int t = 0; t < suite.total_test_count(); ++t) {
      const ::testing::TestInfo& test = *suite.GetTestInfo(t);
      if (test.result()->Failed()) names += std::string(suite.name()) + "." + test.name() + "\n";
    }
  }
  return names;
}

// Collective: rank 0 prints "[  FAILED  ] Suite.Test on rank N" for every failure of every
// rank, rank 0's own included (GoogleTest's summary above it only knows rank 0's).
void report_failures_of_all_ranks(MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const std::string mine = failed_tests();
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(ranks), offsets(ranks, 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm);
  int total = 0;
  for (int r = 0; r < ranks; ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::string all(rank == 0 ? total : 0, '\0');
  MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
              0, comm);
  if (rank != 0 || total == 0) return;
  for (int r = 0; r < ranks; ++r) {
    size_t start = size_t(offsets[r]);
    const size_t end = start + size_t(lengths[r]);
    while (start < end) {
      const size_t newline = all.find('\n', start);
      std::printf("[  FAILED  ] %s on rank %d\n", all.substr(start, newline - start).c_str(), r);
      start = newline + 1;
    }
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  MPI_Init(&argc, &argv);
  PetscInitialize(&argc, &argv, nullptr, nullptr);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    delete listeners.Release(listeners.default_xml_generator());
    listeners.Append(new FailurePrinter(rank));
  }
  const int result = RUN_ALL_TESTS();
  report_failures_of_all_ranks(MPI_COMM_WORLD);
  // A test that fails on any rank fails the run on every rank.
  int worst = 0;
  MPI_Allreduce(&result, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  PetscFinalize();
  MPI_Finalize();
  return worst;
}

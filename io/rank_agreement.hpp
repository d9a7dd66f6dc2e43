// Failures that every rank agrees on. A collective call (an HDF5 write, a read, a close) can
// fail on one rank and succeed on another; a rank that then goes on alone into the next
// collective call waits forever. So every such call is followed by an agreement: the ranks
// learn whether any of them failed, and all of them throw the same exception, or none does.
#pragma once
#include <fmt/format.h>
#include <mpi.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "decomposition/reductions.hpp"

namespace dunesim {

// Thrown on every rank at the same point, after the ranks agreed on a failure: a caller that
// catches it may go on to further collective calls (closing a file), since every rank does.
class AgreedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs `step` on every rank and turns a failure on any rank into the same AgreedError on
// every rank, with the message of the lowest failing rank followed by "(on rank N)". An
// AgreedError from inside `step` (a nested agreement) passes through as it is: every rank
// threw it at the same point, so there is nothing left to agree on.
template <class Step>
void agree_across_ranks(MPI_Comm comm, Step&& step) {
  std::string local_error;
  try {
    step();
  } catch (const AgreedError&) { throw; } catch (const std::exception& e) {
    local_error = e.what();
    if (local_error.empty()) local_error = "unknown error";
  }
  const RankError error = first_error_on_any_rank(comm, std::move(local_error));
  if (error.failed())
    throw AgreedError(fmt::format("{} (on rank {})", error.message, error.rank));
}

// agree_across_ranks with messages that begin with `path` (the file the step works on).
template <class Step>
void run_agreed(MPI_Comm comm, const std::string& path, Step&& step) {
  try {
    agree_across_ranks(comm, std::forward<Step>(step));
  } catch (const AgreedError& e) {
    const std::string message = e.what();
    if (message.rfind(path + ": ", 0) == 0) throw;  // named already by a nested run_agreed
    throw AgreedError(path + ": " + message);
  }
}

}  // namespace dunesim

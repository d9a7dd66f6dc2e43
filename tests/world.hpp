// MPI_COMM_WORLD's rank and size for tests, and an empty directory per test and rank count.
#pragma once
#include <mpi.h>

#include <filesystem>
#include <string>

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

// Collective: <suite>_np<ranks>/<test>, emptied (ctest may run a suite's rank counts at once).
inline std::string fresh_directory(const std::string& suite, const std::string& test) {
  const std::filesystem::path dir =
      std::filesystem::path(suite + "_np" + std::to_string(world_size())) / test;
  if (world_rank() == 0) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return dir.string();
}

}  // namespace dunesim::test

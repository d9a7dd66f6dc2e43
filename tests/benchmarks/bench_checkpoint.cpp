// Benchmark of checkpoint writes (not a test): seeds a case at a chosen resolution and
// writes checkpoints of it, timing each between barriers before and after it, the file
// synced to disk and renamed as in a run.
//
//   mpiexec -n 2 bench_checkpoint cases/dam_break.toml --cell-size 0.008333 --directory /tmp/ck
//
// Compare with the file system's streaming write speed on the same directory:
//   dd if=/dev/zero of=/tmp/ck/dd.bin bs=1M count=512 conv=fdatasync
#include <mpi.h>
#include <petscsys.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "decomposition/reductions.hpp"
#include "io/case_config.hpp"
#include "io/checkpoint.hpp"
#include "src/driver/simulation.hpp"
#include "src/driver/simulation_checkpoint.hpp"

using namespace dunesim;

int main(int argc, char** argv) {
  CLI::App app{"dunesim checkpoint write benchmark"};
  std::string case_file, directory = "bench_checkpoints";
  double cell_size = 0;
  int repeats = 3;
  app.add_option("case", case_file)->required();
  app.add_option("--cell-size", cell_size, "override the case's cell size (m)");
  app.add_option("--directory", directory, "where to write (the file system to measure)");
  app.add_option("--repeats", repeats, "checkpoints written (the first is included)");
  CLI11_PARSE(app, argc, argv);

  MPI_Init(&argc, &argv);
  PetscInitializeNoArguments();
  {
    CaseConfig config = load_case(case_file, MPI_COMM_WORLD);
    if (cell_size > 0) set_cell_size(config, cell_size);
    Simulation sim(config, MPI_COMM_WORLD);
    const Topology& topo = sim.topology();
    const bool root = topo.rank() == 0;
    const int64_t particles = global_sum(topo, int64_t(sim.particles().size()));
    // Every write is of step 0, so each replaces the one before.
    CheckpointWriter writer(MPI_COMM_WORLD, directory, 1);
    double best = 1e30, total = 0;
    double bytes = 0;
    for (int r = 0; r < repeats; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      const auto start = std::chrono::steady_clock::now();
      const std::string path = write_checkpoint(writer, sim, 0.0, 0);
      MPI_Barrier(MPI_COMM_WORLD);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      best = std::min(best, seconds);
      total += seconds;
      if (root) bytes = double(std::filesystem::file_size(path));
    }
    if (root) {
      std::printf("bench_checkpoint case=%s ranks=%d grid=%dx%dx%d particles=%lld directory=%s\n",
                  config.name.c_str(), topo.size(), config.cells[0], config.cells[1],
                  config.cells[2], (long long)particles, directory.c_str());
      std::printf("checkpoint_bytes %.0f (%.1f per particle)\n", bytes, bytes / particles);
      std::printf("write_seconds best %.3f mean %.3f over %d\n", best, total / repeats, repeats);
      std::printf("write_MB_per_s best %.1f mean %.1f (MB = 1e6 bytes, synced to disk)\n",
                  bytes / best / 1e6, bytes * repeats / total / 1e6);
    }
  }
  PetscFinalize();
  MPI_Finalize();
  return 0;
}

// Benchmark of the halo fill (not a test): the three face velocities of a global grid, filled
// in one batched exchange as the simulation does after each velocity update, on the rank
// count it is started with. Prints the first fill (it builds the halo plans) apart from the
// steady-state ones, each timed on the slowest rank.
//
//   mpiexec -n 4 halo_exchange --cells 128 --iterations 50
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>

#include "decomposition/array3.hpp"
#include "decomposition/halo.hpp"
#include "decomposition/topology.hpp"

using namespace dunesim;

namespace {

// Seconds one fill takes on the slowest rank, between barriers.
double timed_fill(Halo& halo, Array3<double>& u, Array3<double>& v, Array3<double>& w) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  halo.fill<double>({&u, &v, &w});
  double seconds = MPI_Wtime() - start;
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"dunesim halo exchange benchmark"};
  int cells = 128, ghost = 3, iterations = 50;
  app.add_option("--cells", cells, "cells along each axis of the global grid");
  app.add_option("--ghost", ghost, "ghost layers (3 is the simulation's for cfl = 1)");
  app.add_option("--iterations", iterations, "steady-state fills timed after the first");
  CLI11_PARSE(app, argc, argv);

  MPI_Init(&argc, &argv);
  {
    Topology topo(MPI_COMM_WORLD, {cells, cells, cells}, ghost);
    Halo halo(topo);
    Array3<double> u(topo.local(Stagger::FaceX), Stagger::FaceX, 1.0);
    Array3<double> v(topo.local(Stagger::FaceY), Stagger::FaceY, 2.0);
    Array3<double> w(topo.local(Stagger::FaceZ), Stagger::FaceZ, 3.0);
    const double first = timed_fill(halo, u, v, w);
    const int64_t bytes_per_fill = halo.bytes_sent();
    double best = 1e30, total = 0;
    for (int n = 0; n < iterations; ++n) {
      const double seconds = timed_fill(halo, u, v, w);
      best = std::min(best, seconds);
      total += seconds;
    }
    if (topo.rank() == 0) {
      std::printf("halo_exchange ranks=%d grid=%d^3 blocks=%dx%dx%d ghost=%d arrays=3 faces\n",
                  topo.size(), cells, topo.dims()[0], topo.dims()[1], topo.dims()[2], ghost);
      std::printf("rank0_bytes_sent_per_fill %lld\n", (long long)bytes_per_fill);
      std::printf("first_fill_seconds %.6f (builds the plans)\n", first);
      std::printf("seconds_per_fill best %.6f mean %.6f over %d\n", best,
                  iterations > 0 ? total / iterations : 0.0, iterations);
    }
  }
  MPI_Finalize();
  return 0;
}

// Benchmark of the halo fill (not a test): the three face velocities of a global grid, filled
// in one batched exchange as the simulation does after each velocity update, on the rank
// count it is started with. Prints the first fill (it builds the halo plans) apart from the
// steady-state ones, each timed on the slowest rank.
//
// Then the overlap of a fill with interior work, as CG's matrix-free product does it: a
// one-layer fill of a cell array followed by a 7-point stencil over the block, against
// fill_during with the stencil's interior rows and the boundary rows after it. The two are
// alternated, and each pair printed.
//
//   mpiexec -n 4 halo_exchange --cells 128 --iterations 50
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <vector>

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

// out = 6 x - (sum of the six neighbours) over the cells of `cells`, calling poll() after
// every 64 rows along x (as the multigrid does while a fill travels).
template <class Poll>
void stencil(const Array3<double>& x, Array3<double>& out, const Box& cells, const Poll& poll) {
  const int64_t sy = x.stride(1), sz = x.stride(2);
  const double* in = x.data();
  int rows = 0;
  for (int k = cells.lo[2]; k < cells.hi[2]; ++k)
    for (int j = cells.lo[1]; j < cells.hi[1]; ++j) {
      if (++rows % 64 == 0) poll();
      for (int i = cells.lo[0]; i < cells.hi[0]; ++i) {
        const int64_t o = x.offset(i, j, k);
        out(i, j, k) =
            6 * in[o] - in[o - 1] - in[o + 1] - in[o - sy] - in[o + sy] - in[o - sz] - in[o + sz];
      }
    }
}

// The block's cells outside `inner`, as up to six slabs.
std::vector<Box> shell(const Box& block, const Box& inner) {
  std::vector<Box> slabs;
  Box rest = block;
  for (int a = 0; a < 3; ++a) {
    Box low = rest, high = rest;
    low.hi[a] = inner.lo[a];
    high.lo[a] = inner.hi[a];
    slabs.push_back(low);
    slabs.push_back(high);
    rest.lo[a] = inner.lo[a];
    rest.hi[a] = inner.hi[a];
  }
  return slabs;
}

// Seconds (slowest rank) of one product: fill then stencil, or the stencil's interior during
// the fill and its shell after.
double timed_product(const Topology& topo, Halo& halo, Array3<double>& x, Array3<double>& out,
                     bool overlapped) {
  const Box block = topo.owned_cells(topo.rank());
  const Box inner = topo.cells_needing_no_ghosts(1);
  auto no_poll = [] {};
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  if (overlapped) {
    halo.fill_during<double>([&](const auto& poll) { stencil(x, out, inner, poll); }, {&x});
    for (const Box& slab : shell(block, inner)) stencil(x, out, slab, no_poll);
  } else {
    halo.fill<double>({&x});
    stencil(x, out, block, no_poll);
  }
  double seconds = MPI_Wtime() - start;
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return seconds;
}

// Alternates the two products and prints the mean of each pair's halves, in groups.
void product_pairs(const Topology& topo, int iterations) {
  Topology cells_topo(topo.comm(), topo.global_cells(), 1, topo.starts());
  Halo one_layer(cells_topo);
  Array3<double> x(cells_topo.local(Stagger::Cell), Stagger::Cell, 1.0);
  Array3<double> out(cells_topo.local(Stagger::Cell), Stagger::Cell, 0.0);
  timed_product(cells_topo, one_layer, x, out, false);  // builds the plan
  const int group = std::max(1, iterations / 5);
  for (int g = 0; g < 5; ++g) {
    double plain = 0, overlapped = 0;
    for (int n = 0; n < group; ++n) {
      plain += timed_product(cells_topo, one_layer, x, out, false);
      overlapped += timed_product(cells_topo, one_layer, x, out, true);
    }
    if (topo.rank() == 0)
      std::printf("product_seconds pair %d: fill_then_stencil %.6f overlapped %.6f\n", g,
                  plain / group, overlapped / group);
  }
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
    product_pairs(topo, iterations);
  }
  MPI_Finalize();
  return 0;
}

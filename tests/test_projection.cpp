// The pressure projection and the PETSc Poisson solve, on 1, 2 and 4 ranks.
#include <gtest/gtest.h>

#include <cmath>

#include "decomposition/reductions.hpp"
#include "src/boundaries.hpp"
#include "src/projection.hpp"
#include "src/simulation.hpp"
#include "src/transfer.hpp"
#include "tests/scenes.hpp"

using namespace dunesim;

// After the projection the discrete divergence of every fluid cell is zero up to the
// solver tolerance: with the unpreconditioned residual test |r|_2 <= rtol |b|_2 and
// div_new = -(dt/dx^2) r, so max |div_new| <= rtol * |div_before|_2.
TEST(Projection, VelocityIsDiscretelyDivergenceFree) {
  CaseConfig config =
      test::water_box_case({0.4, 0.2, 0.3}, 0.02, {0, 0, 0}, {0.16, 0.2, 0.18}, 1.0);
  config.pressure.rtol = 1e-9;
  Simulation sim(config, MPI_COMM_WORLD);
  Particles& p = sim.particles();
  for (size_t n = 0; n < p.size(); ++n) {  // a swirling, compressible start
    p.vx[n] = std::sin(7.0 * p.y[n]) + 0.3 * std::cos(11.0 * p.z[n]);
    p.vy[n] = std::cos(5.0 * p.x[n]);
    p.vz[n] = std::sin(9.0 * p.x[n] + 3.0 * p.y[n]);
  }
  MacGrid& g = sim.grid();
  const Topology& topo = sim.topology();
  particles_to_grid(p, config.materials, sim.halo(), topo, g);
  enforce_solid_velocity(g);
  const Box owned = topo.owned_cells(topo.rank());

  Array3<double>& divergence = g.cell_scratch;
  compute_divergence(g, owned, divergence);
  double before2 = 0;
  for_each_index(owned, [&](int i, int j, int k) { before2 += std::pow(divergence(i, j, k), 2); });
  const double before = std::sqrt(global_sum(topo, before2));
  ASSERT_GT(before, 1.0);

  PressureSolver solver(topo, config.pressure);
  const double dt = 0.005;
  PressureSolveStats stats = project_pressure(g, dt, topo, solver, sim.halo());
  EXPECT_GT(stats.iterations, 0);

  compute_divergence(g, owned, divergence);
  double worst = 0;
  for_each_index(owned, [&](int i, int j, int k) { worst = std::max(worst, std::abs(divergence(i, j, k))); });
  worst = global_max(topo, worst);
  EXPECT_LE(worst, 1.01 * config.pressure.rtol * before) << "before " << before;
}

namespace {

// Max-norm error of the Poisson solve for p = sin(pi X) sin(pi Y) sin(pi Z) on the unit
// cube with p = 0 on its boundary, using m interior cells per axis. The boundary values sit
// at the centres of a ring of air cells, so X = (i - 0) h for cell i with h = 1/(m+1).
double manufactured_poisson_error(int m) {
  const int n = m + 2;
  CaseConfig config = test::water_box_case({1.0 * n, 1.0 * n, 1.0 * n}, 1.0, {0, 0, 0}, {0, 0, 0});
  config.pressure.rtol = 1e-12;
  Topology topo(MPI_COMM_WORLD, {n, n, n}, 1);
  Halo halo(topo);
  MacGrid g;
  g.allocate(topo, 1.0 / (m + 1));
  const double h = 1.0 / (m + 1), pi = M_PI;
  auto exact = [&](int i, int j, int k) {
    return std::sin(pi * i * h) * std::sin(pi * j * h) * std::sin(pi * k * h);
  };
  Array3<double> rhs(topo.local(Stagger::Cell), Stagger::Cell, 0.0);
  g.cell_type.fill(kAir);
  for_each_index(topo.local(Stagger::Cell), [&](int i, int j, int k) {
    bool interior = i >= 1 && i <= m && j >= 1 && j <= m && k >= 1 && k <= m;
    if (!interior) return;
    g.cell_type(i, j, k) = kFluid;
    g.density(i, j, k) = 1.0;
    rhs(i, j, k) = h * h * 3.0 * pi * pi * exact(i, j, k);  // sum(p_c - p_n) = -h^2 lap p
  });
  PressureSolver solver(topo, config.pressure);
  solver.solve(g, rhs, g.pressure, halo);
  double err = 0;
  for_each_index(topo.owned_cells(topo.rank()), [&](int i, int j, int k) {
    if (g.cell_type(i, j, k) == kFluid) err = std::max(err, std::abs(g.pressure(i, j, k) - exact(i, j, k)));
  });
  return global_max(topo, err);
}

}  // namespace

// Second order: halving h divides the error by 4; accept >= 3.6 (the h^4 term of the
// truncation error still shows at these sizes).
TEST(Projection, ManufacturedPoissonConvergesAtSecondOrder) {
  double coarse = manufactured_poisson_error(15);
  double fine = manufactured_poisson_error(31);
  double order = std::log2(coarse / fine);
  EXPECT_GT(order, 1.85) << "errors " << coarse << " " << fine;
  RecordProperty("order", std::to_string(order));
  EXPECT_LT(fine, 2e-3);
}

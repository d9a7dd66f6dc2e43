// A tank of still water must stay still, with hydrostatic pressure (1, 2 and 4 ranks).
#include <gtest/gtest.h>

#include <cmath>

#include "decomposition/reductions.hpp"
#include "src/simulation.hpp"
#include "tests/scenes.hpp"

using namespace dunesim;

namespace {

constexpr double kDepth = 0.2, kCell = 0.02, kGravity = 9.81, kDensity = 1000.0;

double max_speed(const Simulation& sim) {
  const Particles& p = sim.particles();
  double speed = 0;
  for (size_t n = 0; n < p.size(); ++n) speed = std::max(speed, p.speed(n));
  return global_max(sim.topology(), speed);
}

}  // namespace

TEST(StillWater, StaysStillWithHydrostaticPressure) {
  CaseConfig config =
      test::water_box_case({0.3, 0.3, 0.4}, kCell, {0, 0, 0}, {0.3, 0.3, kDepth}, 1.0);
  config.pressure.rtol = 1e-8;
  Simulation sim(config, MPI_COMM_WORLD);
  for (int s = 0; s < 100; ++s) sim.step(sim.stable_dt());

  // Bound: 1e-3 m/s is the speed a particle gains falling for 0.1 ms, four orders below
  // the wave speed sqrt(g H) = 1.4 m/s; FLIP noise from the jittered seeding stays far
  // below it when the projection is right.
  const double speed = max_speed(sim);
  RecordProperty("max_speed_m_per_s", std::to_string(speed));
  EXPECT_LT(speed, 1e-3) << "after " << sim.time() << " s";

  // The free-surface condition puts p = 0 at the centre of the first air cell (a first-
  // order ghost-fluid surface), so the discrete hydrostatic solution is
  // p = rho g (H + dx/2 - z) at fluid cell centres; compare within 1%.
  const MacGrid& g = sim.grid();
  const Topology& topo = sim.topology();
  double worst = 0;
  int64_t cells = 0;
  for_each_index(topo.owned_cells(topo.rank()), [&](int i, int j, int k) {
    if (g.cell_type(i, j, k) != kFluid) return;
    double z = (k + 0.5) * kCell;
    double expected = kDensity * kGravity * (kDepth + 0.5 * kCell - z);
    worst = std::max(worst, std::abs(g.pressure(i, j, k) - expected) / expected);
    ++cells;
  });
  worst = global_max(topo, worst);
  EXPECT_EQ(global_sum(topo, cells), int64_t(15 * 15 * 10));
  RecordProperty("max_relative_pressure_error", std::to_string(worst));
  EXPECT_LT(worst, 0.01);
}

// The same tank under APIC: the particles take the grid's velocity and its gradient, which
// at rest are zero, so the tank stays as still as under FLIP.
TEST(StillWater, StaysStillUnderApic) {
  CaseConfig config =
      test::water_box_case({0.3, 0.3, 0.4}, kCell, {0, 0, 0}, {0.3, 0.3, kDepth}, 1.0);
  config.pressure.rtol = 1e-8;
  config.materials[0].transfer = Transfer::Apic;
  Simulation sim(config, MPI_COMM_WORLD);
  for (int s = 0; s < 100; ++s) sim.step(sim.stable_dt());
  const double speed = max_speed(sim);
  RecordProperty("max_speed_m_per_s", std::to_string(speed));
  EXPECT_LT(speed, 1e-3) << "after " << sim.time() << " s";
}

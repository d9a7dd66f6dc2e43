// The sand column collapse on 2 and 4 ranks: the runout agrees with a one-rank run of
// the same case (computed inside the same job on MPI_COMM_SELF) within 2%.
#include <gtest/gtest.h>

#include <cmath>

#include "decomposition/reductions.hpp"
#include "src/simulation.hpp"
#include "tests/scenes.hpp"

using namespace dunesim;

namespace {

CaseConfig column_case() {
  CaseConfig c = test::water_box_case({0.3, 0.3, 0.2}, 0.01, {0.12, 0.12, 0.0},
                                      {0.18, 0.18, 0.15}, 1.0);
  MaterialSpec& sand = c.materials[0];
  sand.name = "sand";
  sand.kind = MaterialKind::Sand;
  sand.density = 1600;
  sand.flip_ratio = 0.05;
  sand.friction_angle_deg = 30.0;
  c.wall_friction = 0.6;
  c.pressure.rtol = 1e-8;
  return c;
}

// Runout: the largest horizontal distance from the column's axis (m).
double runout_after(Simulation& sim, double t_end) {
  while (sim.time() < t_end - 1e-12) sim.step(std::min(sim.stable_dt(), t_end - sim.time()));
  const Particles& p = sim.particles();
  double r = 0;
  for (size_t n = 0; n < p.size(); ++n) r = std::max(r, std::hypot(p.x[n] - 0.15, p.y[n] - 0.15));
  return global_max(sim.topology(), r);
}

}  // namespace

TEST(SandColumn, RunoutMatchesOneRankRun) {
  CaseConfig config = column_case();
  Simulation reference(config, MPI_COMM_SELF);
  const double expected = runout_after(reference, 0.6);
  Simulation sim(config, MPI_COMM_WORLD);
  const double runout = runout_after(sim, 0.6);
  RecordProperty("runout_m", std::to_string(runout));
  RecordProperty("one_rank_runout_m", std::to_string(expected));
  EXPECT_GT(expected, 0.03 + 0.02);  // the column did collapse (its half-width is 0.03 m)
  EXPECT_NEAR(runout, expected, 0.02 * expected);
}

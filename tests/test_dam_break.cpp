// A small dam break run for 200 steps on 1, 2 and 4 ranks: particles are never lost or
// duplicated by migration, and positions agree with a one-rank run.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>

#include "decomposition/reductions.hpp"
#include "src/simulation.hpp"
#include "tests/compare_runs.hpp"
#include "tests/scenes.hpp"

using namespace dunesim;

namespace {

constexpr int kSteps = 200;

CaseConfig small_dam_break() {
  CaseConfig c = test::water_box_case({0.4, 0.2, 0.3}, 0.02, {0, 0, 0}, {0.16, 0.2, 0.18}, 1.0);
  c.pressure.rtol = 1e-10;
  return c;
}

// Fixed steps so that every rank count takes the same time steps.
void run_steps(Simulation& sim, int steps) {
  for (int s = 0; s < steps; ++s) sim.step(0.004);
}

}  // namespace

TEST(DamBreak, EveryParticleExistsExactlyOnceAfterMigrations) {
  CaseConfig config = small_dam_break();
  Simulation sim(config, MPI_COMM_WORLD);
  const int64_t seeded = global_sum(sim.topology(), int64_t(sim.particles().size()));
  ASSERT_EQ(seeded, 8 * 10 * 9 * 8);
  run_steps(sim, kSteps);
  EXPECT_GT(sim.migrated_particles_sent() + (sim.topology().size() == 1), 0);

  const Particles& p = sim.particles();
  int local = int(p.size()), size = sim.topology().size();
  std::vector<int> counts(size), offsets(size, 0);
  MPI_Gather(&local, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  std::vector<int64_t> all(sim.topology().rank() == 0 ? seeded : 0);
  MPI_Gatherv(p.id.data(), local, MPI_INT64_T, all.data(), counts.data(), offsets.data(),
              MPI_INT64_T, 0, MPI_COMM_WORLD);
  if (sim.topology().rank() == 0) {
    ASSERT_EQ(int64_t(all.size()), seeded);
    std::sort(all.begin(), all.end());
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "duplicated id";
  }
  // Each particle sits in a cell its rank owns.
  const Box owned = sim.topology().owned_cells(sim.topology().rank());
  const double dx = config.cell_size;
  for (size_t n = 0; n < p.size(); ++n)
    ASSERT_TRUE(owned.contains(int(std::floor(p.x[n] / dx)), int(std::floor(p.y[n] / dx)),
                               int(std::floor(p.z[n] / dx))));
}

// The bound and where it comes from: kRankCountToleranceCells (compare_runs.hpp).
TEST(DamBreak, PositionsMatchOneRankRun) {
  CaseConfig config = small_dam_break();
  Simulation reference(config, MPI_COMM_SELF);
  run_steps(reference, kSteps);

  Simulation sim(config, MPI_COMM_WORLD);
  run_steps(sim, kSteps);
  const double worst = test::max_position_difference(sim, reference);
  RecordProperty("max_position_difference_m", std::to_string(worst));
  EXPECT_LT(worst, test::kRankCountToleranceCells * config.cell_size);
  // The water really moved: the front ran out beyond the initial column.
  double front = 0;
  for (double x : sim.particles().x) front = std::max(front, x);
  EXPECT_GT(global_max(sim.topology(), front), 0.3);
}

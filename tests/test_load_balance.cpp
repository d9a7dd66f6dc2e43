// Dynamic load balancing on 2 and 4 ranks: a dam break started on even blocks (all the water
// on one side) is re-cut so that no rank holds more than 1.2 times the mean, without losing
// or duplicating a particle, and the flow is the same as on one rank; the solves' initial
// guesses move with their cells.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>

#include "decomposition/reductions.hpp"
#include "src/driver/simulation.hpp"
#include "tests/compare_runs.hpp"
#include "tests/particle_ids.hpp"
#include "tests/scenes.hpp"
#include "tests/world_ranks.hpp"

using namespace dunesim;

namespace {

CaseConfig dam_break() {
  CaseConfig c = test::water_box_case({0.4, 0.2, 0.3}, 0.02, {0, 0, 0}, {0.16, 0.2, 0.18}, 1.0);
  c.pressure.rtol = 1e-10;
  c.load_balance.interval_steps = 10;
  c.load_balance.threshold = 1.05;
  return c;
}

BlockCuts even_cuts(const CaseConfig& c) {
  Topology even(MPI_COMM_WORLD, c.cells, Simulation::ghost_width(c.cfl));
  return even.starts();
}

void expect_each_id_once(const Simulation& sim, int64_t expected_count) {
  EXPECT_EQ(global_sum(sim.topology(), int64_t(sim.particles().size())), expected_count);
  EXPECT_EQ(test::repeated_ids(test::all_ids_sorted(sim.topology(), sim.particles())), 0)
      << "ids held more than once";
}

// The whole grid's values of a cell array, each taken from the rank that owns the cell.
template <class T>
std::vector<double> whole_grid(Simulation& sim, const Array3<T>& a) {
  const Topology& topo = sim.topology();
  const Index3 n = topo.global_cells();
  std::vector<double> all(size_t(n[0]) * n[1] * n[2], 0.0);
  for_each_index(topo.owned_cells(topo.rank()), [&](int i, int j, int k) {
    all[size_t(i) + size_t(n[0]) * (j + size_t(n[1]) * k)] = a(i, j, k);
  });
  MPI_Allreduce(MPI_IN_PLACE, all.data(), int(all.size()), MPI_DOUBLE, MPI_SUM, topo.comm());
  return all;
}

double largest_magnitude(const std::vector<double>& values) {
  double largest = 0;
  for (double v : values) largest = std::max(largest, std::abs(v));
  return largest;
}

}  // namespace

TEST(LoadBalance, RecutBalancesParticlesAndKeepsEveryOne) {
  CaseConfig config = dam_break();
  Simulation sim(config, MPI_COMM_WORLD, even_cuts(config));
  const int64_t total = global_sum(sim.topology(), int64_t(sim.particles().size()));
  const double before = sim.particle_imbalance();
  RecordProperty("imbalance_before", std::to_string(before));
  EXPECT_GT(before, 1.5);  // the even layout really is unbalanced for this case
  sim.rebalance();
  const double after = sim.particle_imbalance();
  RecordProperty("imbalance_after", std::to_string(after));
  EXPECT_LE(after, 1.2);
  expect_each_id_once(sim, total);
  // Each particle sits in a cell its rank owns after the re-cut.
  const Box owned = sim.topology().owned_cells(sim.topology().rank());
  for (size_t n = 0; n < sim.particles().size(); ++n)
    ASSERT_TRUE(owned.contains(int(sim.particles().x[n] / 0.02), int(sim.particles().y[n] / 0.02),
                               int(sim.particles().z[n] / 0.02)));
}

// Water fills the left half of a long box and sand the right half, a sand particle counting
// as the work of two. The box is too thin to cut along y or z, so the start-up cuts run
// across x and must give the sand's ranks fewer particles: each rank's weighted work is
// close to the mean (within 1.2, the granularity of whole cell planes), while the plain
// particle counts are not (1.25 on 2 ranks, 1.5 on 4 if the weights are right).
TEST(LoadBalance, SandParticlesCountTheirWork) {
  CaseConfig c = test::water_box_case({0.4, 0.04, 0.04}, 0.01, {0, 0, 0}, {0.2, 0.04, 0.02}, 1.0);
  MaterialSpec sand;
  sand.name = "sand";
  sand.kind = MaterialKind::Sand;
  c.materials.push_back(sand);
  SourceSpec bed = c.sources[0];
  bed.material = 1;
  bed.shape.min = {0.2, 0, 0};
  bed.shape.max = {0.4, 0.04, 0.02};
  c.sources.push_back(bed);
  c.load_balance.sand_particle_work = 2.0;
  Simulation sim(c, MPI_COMM_WORLD);
  RecordProperty("work_imbalance", std::to_string(sim.work_imbalance()));
  RecordProperty("particle_imbalance", std::to_string(sim.particle_imbalance()));
  EXPECT_LE(sim.work_imbalance(), 1.2);
  EXPECT_GT(sim.particle_imbalance(), 1.2);  // the sand's ranks took fewer particles
}

// While the water runs to the far wall the cuts follow it; the positions after 150 steps
// match a one-rank run within the tolerance of the rank-count test (test_dam_break.cpp).
TEST(LoadBalance, FlowIsUnchangedByRebalancing) {
  CaseConfig config = dam_break();
  const Particles reference = test::one_rank_reference(config, [](Simulation& alone) {
    for (int s = 0; s < 150; ++s) alone.step(0.004);
  });
  Simulation sim(config, MPI_COMM_WORLD, even_cuts(config));
  const int64_t total = global_sum(sim.topology(), int64_t(sim.particles().size()));
  double worst_imbalance = 0;
  for (int s = 0; s < 150; ++s) {
    sim.step(0.004);
    if (sim.steps() % 10 == 0)
      worst_imbalance = std::max(worst_imbalance, sim.particle_imbalance());
  }
  RecordProperty("rebalances", std::to_string(sim.rebalances()));
  RecordProperty("worst_imbalance_after_a_check", std::to_string(worst_imbalance));
  EXPECT_GE(sim.rebalances(), 1);
  EXPECT_LE(worst_imbalance, 1.2);
  expect_each_id_once(sim, total);

  const test::RunComparison comparison = test::compare_with_reference(sim, reference);
  test::expect_same_particles(comparison);
  RecordProperty("max_position_difference_m", std::to_string(comparison.position));
  EXPECT_LT(comparison.position, test::kRankCountToleranceCells * config.cell_size);
}

// The pressure and rigid-plastic sand's wall friction force are the next solves' initial
// guesses (MacGrid::carried_between_steps): a re-cut moves them to the cells' new owners
// unchanged, as a checkpoint keeps them, instead of restarting them from zero. A cohesive
// block rests on a floor tilted by 20 degrees (mu 0.5), so the floor holds it by friction.
TEST(LoadBalance, RecutMovesTheSolvesInitialGuesses) {
  SKIP_IN_A_ONE_RANK_JOB();
  const CaseConfig c =
      test::rigid_plastic_block_on_tilted_floor({0.4, 0.04, 0.1}, {0.1, 0.04, 0.05}, 20);
  Simulation sim(c, MPI_COMM_WORLD, even_cuts(c));
  for (int s = 0; s < 5; ++s) sim.step(0.004);
  std::vector<std::vector<double>> before;
  for (const MacGrid::CarriedArray& a : sim.grid().carried_between_steps())
    before.push_back(whole_grid(sim, *a.array));
  ASSERT_EQ(before.size(), 4u) << "the pressure and three wall force components";
  EXPECT_GT(largest_magnitude(before[0]), 100.0) << "the block's pressure, Pa";
  EXPECT_GT(largest_magnitude(before[1]), 100.0) << "the floor's friction force along x, N/m^3";

  ASSERT_TRUE(sim.rebalance()) << "the even cuts leave the block on one side";
  const std::vector<MacGrid::CarriedArray> after = sim.grid().carried_between_steps();
  for (size_t f = 0; f < after.size(); ++f) {
    const std::vector<double> moved = whole_grid(sim, *after[f].array);
    double difference = 0;
    for (size_t n = 0; n < moved.size(); ++n)
      difference = std::max(difference, std::abs(moved[n] - before[f][n]));
    EXPECT_EQ(difference, 0.0) << after[f].name;
  }
}

// The steps each loose cell's sand has rested (resting grains holding) move with their cells
// too: a re-cut that lost them would let resting grains creep again until they had rested
// anew. A cohesive block of the default model (1 kPa, so that it stands) ends half a cell
// short of whole cells along x and z, so the cells along its top edge hold 2 particles.
TEST(LoadBalance, RecutMovesTheRestingGrainsCounts) {
  SKIP_IN_A_ONE_RANK_JOB();
  CaseConfig c = test::sand_box_case({0.4, 0.04, 0.1}, 0.01, {0, 0, 0}, {0.105, 0.04, 0.055}, 30);
  test::validated_model(c.materials[0]);
  c.materials[0].cohesion = 1000;
  c.load_balance.interval_steps = 0;  // the re-cut below is the first
  Simulation sim(c, MPI_COMM_WORLD, even_cuts(c));
  for (int s = 0; s < 20; ++s) sim.step(0.004);
  ASSERT_EQ(sim.grid().carried_counts_between_steps().size(), 1u);
  const std::vector<double> before =
      whole_grid(sim, *sim.grid().carried_counts_between_steps()[0].array);
  EXPECT_GE(*std::max_element(before.begin(), before.end()), 12.0)
      << "loose cells at rest for the settling time, sqrt(2 dx / g) = 0.045 s";

  ASSERT_TRUE(sim.rebalance()) << "the even cuts leave the block on one side";
  const std::vector<double> moved =
      whole_grid(sim, *sim.grid().carried_counts_between_steps()[0].array);
  EXPECT_EQ(moved, before);
}

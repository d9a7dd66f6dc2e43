// The sand column collapse on 2 and 4 ranks against one rank, by the deposit's mass: the
// fraction of the sand within each distance of the column's axis, ring by ring.
//
// Two bounds, each with its origin:
// - Physics: a decomposition may change the deposit no more than starting from another seed
//   of the particles' jitter on one rank does (an equally valid initial packing). Runs on
//   different rank counts sum in other orders, and where the flow amplifies round-off (the
//   yield test's thresholds can turn it into different avalanches) this is the most one
//   can ask.
// - Determinism: this collapse does not amplify round-off. On 2 and 4 ranks not one of the
//   4320 particles ended in another ring than on one rank, so at most two may. A missing
//   stress halo (33 particles moved, 0.8% of the mass) and rigid clusters not summed
//   across ranks (5 particles) stay inside the seeds' spread (0.8%) but fail here; a
//   missing sand-flag halo (1 particle) passes both. A change that makes this collapse
//   chaotic must revisit this bound.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "decomposition/reductions.hpp"
#include "src/driver/simulation.hpp"
#include "tests/compare_runs.hpp"
#include "tests/deposit_rings.hpp"
#include "tests/scenes.hpp"
#include "tests/world_ranks.hpp"

using namespace dunesim;

namespace {

constexpr double kCell = 0.01;
constexpr double kAxis = 0.15;  // the column's axis is at x = y = 0.15 m
constexpr int kRings = 15;      // rings one cell wide around the axis

CaseConfig column_case(uint64_t seed,
                       SandRheology::Kind rheology = SandRheology::Kind::ZhuBridson) {
  CaseConfig c =
      test::sand_box_case({0.3, 0.3, 0.2}, kCell, {0.12, 0.12, 0.0}, {0.18, 0.18, 0.15}, 30.0);
  c.wall_friction = 0.6;
  c.pressure.rtol = 1e-8;
  c.seed = seed;
  c.materials[0].rheology.kind = rheology;
  if (rheology == SandRheology::Kind::ElasticPlastic)
    c.materials[0].flip_ratio = 0.95;  // the case keys' default for it
  return c;
}

// After 0.6 s (the deposit has stopped): the fraction of the particles (all of the same
// mass) within (r + 1) cells of the axis, for each ring r; the particle count last.
std::vector<double> settled_deposit_profile(Simulation& sim) {
  while (sim.time() < 0.6 - 1e-12) sim.step(std::min(sim.stable_dt(), 0.6 - sim.time()));
  std::vector<double> share = test::mass_within_rings(sim, kAxis, kAxis, kCell, kRings);
  share.push_back(double(global_sum(sim.topology(), int64_t(sim.particles().size()))));
  return share;
}

// The one-rank deposit of each seed, for every rank: the seeds' runs are shared out among the
// ranks (seed s on rank s mod P, on MPI_COMM_SELF) and their profiles sent to all, so a test's
// ranks make each reference run once instead of each making all of them.
std::vector<std::vector<double>> one_rank_profiles(const std::vector<uint64_t>& seeds,
                                                   SandRheology::Kind rheology) {
  const int ranks = test::world_size(), rank = test::world_rank();
  std::vector<std::vector<double>> profiles(seeds.size(), std::vector<double>(kRings + 1, 0.0));
  for (size_t s = 0; s < seeds.size(); ++s) {
    if (int(s) % ranks != rank) continue;
    Simulation run(column_case(seeds[s], rheology), MPI_COMM_SELF);
    profiles[s] = settled_deposit_profile(run);
  }
  test::barrier_without_spinning(MPI_COMM_WORLD);
  for (size_t s = 0; s < seeds.size(); ++s)
    MPI_Bcast(profiles[s].data(), kRings + 1, MPI_DOUBLE, int(s) % ranks, MPI_COMM_WORLD);
  return profiles;
}

double largest_difference(const std::vector<double>& a, const std::vector<double>& b) {
  return test::largest_ring_difference(a, b, kRings);
}

}  // namespace

TEST(SandColumn, DepositMatchesOneRank) {
  SKIP_IN_A_ONE_RANK_JOB();
  const std::vector<std::vector<double>> one_rank =
      one_rank_profiles({1, 2, 3}, SandRheology::Kind::ZhuBridson);
  double seed_spread = 0;
  for (size_t a = 0; a < one_rank.size(); ++a)
    for (size_t b = a + 1; b < one_rank.size(); ++b)
      seed_spread = std::max(seed_spread, largest_difference(one_rank[a], one_rank[b]));

  Simulation sim(column_case(1), MPI_COMM_WORLD);
  const std::vector<double> distributed = settled_deposit_profile(sim);
  const double rank_difference = largest_difference(distributed, one_rank[0]);
  RecordProperty("seed_spread", std::to_string(seed_spread));
  RecordProperty("rank_difference", std::to_string(rank_difference));
  // The column did collapse: its half-width is 3 cells, and sand lies beyond 5.
  EXPECT_LT(one_rank[0][4], 0.99);
  EXPECT_GT(seed_spread, 0.0);  // seeds do change the packing
  EXPECT_LE(rank_difference, seed_spread);
  const double particles = one_rank[0][kRings];
  EXPECT_EQ(distributed[kRings], particles);
  EXPECT_LE(rank_difference, 2 / particles) << "more than two particles ended in another ring";
}

namespace {

// The same collapse under another rheology, on all ranks against one rank: the deposit may
// differ no more than seeds 1 and 2 differ on one rank (the physics bound above), no
// particle may be lost, and, as for the default model, at most two particles may end in
// another ring: these collapses do not amplify round-off either (measured on 2 and 4 ranks:
// no particle in another ring for mu(I), elastic- and rigid-plastic sand). The seed spread
// alone let a missing stress halo through: elastic-plastic sand without the halo fills of
// its stress at the step's start and after the trial step moved 0.0016 of the particles
// (spread 0.0252).
void expect_deposit_within_seed_spread(SandRheology::Kind rheology) {
  const std::vector<std::vector<double>> one_rank = one_rank_profiles({1, 2}, rheology);
  const double seed_spread = largest_difference(one_rank[0], one_rank[1]);
  Simulation sim(column_case(1, rheology), MPI_COMM_WORLD);
  const std::vector<double> distributed = settled_deposit_profile(sim);
  const double rank_difference = largest_difference(distributed, one_rank[0]);
  if (test::world_rank() == 0)
    std::printf("seed spread %.4f, ranks against one rank %.4f\n", seed_spread, rank_difference);
  EXPECT_LT(one_rank[0][4], 0.99);  // it collapsed
  EXPECT_EQ(distributed[kRings], one_rank[0][kRings]);
  EXPECT_LE(rank_difference, std::max(seed_spread, 2 / one_rank[0][kRings]));
  EXPECT_LE(rank_difference, 2 / one_rank[0][kRings])
      << "more than two particles ended in another ring";
}

}  // namespace

// mu(I) (Jop, Forterre & Pouliquen 2006) in a whole collapse on 2 and 4 ranks.
TEST(SandColumn, MuOfIDepositMatchesOneRank) {
  SKIP_IN_A_ONE_RANK_JOB();
  expect_deposit_within_seed_spread(SandRheology::Kind::MuOfI);
}

// Elastic-plastic sand (its stress on the particles, exchanged and migrated with them).
TEST(SandColumn, ElasticPlasticDepositMatchesOneRank) {
  SKIP_IN_A_ONE_RANK_JOB();
  expect_deposit_within_seed_spread(SandRheology::Kind::ElasticPlastic);
}

// Rigid-plastic sand (its implicit friction solve across the ranks).
TEST(SandColumn, RigidPlasticDepositMatchesOneRank) {
  SKIP_IN_A_ONE_RANK_JOB();
  expect_deposit_within_seed_spread(SandRheology::Kind::RigidPlastic);
}

// Pouring sources: every empty cell of the shape is refilled with the seeding's 8 jittered
// particles, only while the source pours, on the rank that owns the cell, with the same
// particles and ids on any number of ranks; a pouring simulation agrees with a one-rank run.
// (The poured sand heap itself is test_sand_pile.)
#include <gtest/gtest.h>

#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "decomposition/reductions.hpp"
#include "src/grid/boundaries.hpp"
#include "src/particles/emission.hpp"
#include "src/particles/seeding.hpp"
#include "tests/compare_runs.hpp"
#include "src/driver/simulation.hpp"
#include "tests/world_ranks.hpp"

using namespace dunesim;

namespace {

// A 0.4 x 0.2 x 0.3 m box at 2 cm cells; a 0.1 x 0.2 x 0.06 m nozzle pours until 0.5 s,
// and a sphere that only fills at the start overlaps its lower half.
CaseConfig nozzle_case() {
  CaseConfig c;
  c.file = "<test>";
  c.name = "nozzle";
  c.domain_size = {0.4, 0.2, 0.3};
  set_cell_size(c, 0.02);
  MaterialSpec water;
  water.name = "water";
  c.materials.push_back(water);
  SourceSpec nozzle;
  nozzle.shape.min = {0.15, 0.0, 0.2};
  nozzle.shape.max = {0.25, 0.2, 0.26};
  nozzle.velocity = {0.0, 0.0, -1.0};
  nozzle.emit_until = 0.5;
  c.sources.push_back(nozzle);
  SourceSpec ball;
  ball.shape.kind = ShapeSpec::Kind::Sphere;
  ball.shape.center = {0.2, 0.1, 0.2};
  ball.shape.radius = 0.05;
  c.sources.push_back(ball);
  c.pressure.rtol = 1e-10;
  return c;
}

struct Emitted {
  Particles particles;
  int64_t count = 0;  // over all ranks
};

// What the emitter adds after `step` to `present` (restricted to this rank's cells).
Emitted emit_once(const CaseConfig& config, MPI_Comm comm, const Particles& present, int64_t step,
                  double time, double step_duration = 0.002) {
  Topology topo(comm, config.cells, 2);
  Array3<uint8_t> solid(topo.local(Stagger::Cell), Stagger::Cell, 0);
  mark_static_solids(config, solid);
  Emitted out;
  const Box owned = topo.owned_cells(topo.rank());
  const double dx = config.cell_size;
  for (size_t n = 0; n < present.size(); ++n) {
    if (!owned.contains(int(present.x[n] / dx), int(present.y[n] / dx), int(present.z[n] / dx)))
      continue;
    out.particles.x.push_back(present.x[n]);
    out.particles.y.push_back(present.y[n]);
    out.particles.z.push_back(present.z[n]);
    out.particles.vx.push_back(0);
    out.particles.vy.push_back(0);
    out.particles.vz.push_back(0);
    out.particles.id.push_back(present.id[n]);
    out.particles.material.push_back(0);
  }
  const size_t kept = out.particles.size();
  ParticleEmitter emitter(config, topo);
  const int64_t added = emitter.emit(config, solid, step, time, step_duration, out.particles);
  EXPECT_EQ(added, int64_t(out.particles.size() - kept));
  out.particles.for_each_array([&](auto& v) { v.erase(v.begin(), v.begin() + kept); });
  out.count = global_sum(topo, added);
  return out;
}

}  // namespace

TEST(Emission, FillsEmptyCellsOfThePouringShapeOnly) {
  const CaseConfig config = nozzle_case();
  const double dx = config.cell_size;
  // One particle in the nozzle's first cell keeps that cell from being refilled.
  Particles present;
  present.x = {0.15 + 0.5 * dx};
  present.y = {0.5 * dx};
  present.z = {0.2 + 0.5 * dx};
  present.id = {0};
  Emitted e = emit_once(config, MPI_COMM_SELF, present, 7, 0.1);
  // 5 x 10 x 3 cells in the nozzle, one of them occupied.
  EXPECT_EQ(e.count, (5 * 10 * 3 - 1) * kParticlesPerCell);
  const int64_t all_cells = int64_t(config.cells[0]) * config.cells[1] * config.cells[2];
  std::unordered_set<int64_t> ids;
  const Particles& p = e.particles;
  auto cell_of = [&](double x, double y, double z) {
    return Index3{int(x / dx), int(y / dx), int(z / dx)};
  };
  const Index3 occupied = cell_of(present.x[0], present.y[0], present.z[0]);
  for (size_t n = 0; n < p.size(); ++n) {
    EXPECT_TRUE(config.sources[0].shape.contains({p.x[n], p.y[n], p.z[n]}));
    EXPECT_NE(cell_of(p.x[n], p.y[n], p.z[n]), occupied);
    EXPECT_EQ(p.vz[n], -1.0);
    // Above every initial id and every id of an earlier step.
    EXPECT_GE(p.id[n], kParticlesPerCell * all_cells * 7);
    EXPECT_LT(p.id[n], kParticlesPerCell * all_cells * 8);
    ids.insert(p.id[n]);
  }
  EXPECT_EQ(ids.size(), p.size());
  // The sphere that only filled at the start is not refilled, and nothing pours once the
  // nozzle's time is up.
  EXPECT_EQ(emit_once(config, MPI_COMM_SELF, Particles{}, 7, 0.1).count,
            5 * 10 * 3 * kParticlesPerCell);
  EXPECT_EQ(emit_once(config, MPI_COMM_SELF, Particles{}, 30, 0.5).count, 0);
}

// A rain block 0.4 x 0.2 m in area and 0.04 m tall, raining 0.05 m/s until 1 s.
CaseConfig rain_case() {
  CaseConfig c = nozzle_case();
  c.sources.resize(1);
  SourceSpec& rain = c.sources[0];
  rain.shape.min = {0.0, 0.0, 0.24};
  rain.shape.max = {0.4, 0.2, 0.28};
  rain.velocity = {0.0, 0.0, -2.0};
  rain.emit_until = 1.0;
  rain.rain_rate = 0.05;
  return c;
}

// Over 50 steps of 2 ms the block must deliver rain_rate * area * time of water, in drops
// of one particle's volume (dx^3 / 8). Each sub-cell slot is an independent draw, so the
// count is binomial: the bound is 4 standard deviations.
TEST(Emission, RainDeliversItsRateOverTheArea) {
  const CaseConfig config = rain_case();
  const SourceSpec& rain = config.sources[0];
  const double dx = config.cell_size, dt = 0.002, drop = dx * dx * dx / kParticlesPerCell;
  const int steps = 50;
  int64_t drops = 0;
  std::unordered_set<int64_t> ids;
  for (int step = 1; step <= steps; ++step) {
    Emitted e = emit_once(config, MPI_COMM_SELF, Particles{}, step, (step - 1) * dt, dt);
    drops += e.count;
    for (size_t n = 0; n < e.particles.size(); ++n) {
      EXPECT_TRUE(rain.shape.contains({e.particles.x[n], e.particles.y[n], e.particles.z[n]}));
      EXPECT_EQ(e.particles.vz[n], -2.0);
      EXPECT_LT(e.particles.id[n], 0);  // apart from every seeded and poured id
      ids.insert(e.particles.id[n]);
    }
  }
  EXPECT_EQ(ids.size(), size_t(drops));
  const double area = 0.4 * 0.2, height = 0.04;
  const double expected = rain.rain_rate * area * steps * dt / drop;
  const double slots = steps * area * height / drop, chance = rain.rain_rate * dt / height;
  const double sigma = std::sqrt(slots * chance * (1 - chance));
  std::printf("rain: %lld drops over %d steps, %.1f expected (sigma %.1f)\n", (long long)drops,
              steps, expected, sigma);
  EXPECT_NEAR(double(drops), expected, 4 * sigma);
  // And none once the rain has stopped.
  EXPECT_EQ(emit_once(config, MPI_COMM_SELF, Particles{}, 600, 1.0, dt).count, 0);
}

TEST(Emission, RainFallsTheSameOnAnyRankCount) {
  SKIP_IN_A_ONE_RANK_JOB();
  const CaseConfig config = rain_case();
  int64_t alone = 0, shared = 0;
  for (int step = 1; step <= 10; ++step) {
    alone += emit_once(config, MPI_COMM_SELF, Particles{}, step, 0.1, 0.01).count;
    shared += emit_once(config, MPI_COMM_WORLD, Particles{}, step, 0.1, 0.01).count;
  }
  EXPECT_GT(alone, 0);
  EXPECT_EQ(shared, alone);
}

TEST(Emission, SameParticlesOnAnyRankCount) {
  SKIP_IN_A_ONE_RANK_JOB();
  const CaseConfig config = nozzle_case();
  const Emitted alone = emit_once(config, MPI_COMM_SELF, Particles{}, 3, 0.0);
  const Emitted shared = emit_once(config, MPI_COMM_WORLD, Particles{}, 3, 0.0);
  EXPECT_EQ(shared.count, alone.count);
  std::unordered_map<int64_t, size_t> where;
  for (size_t n = 0; n < alone.particles.size(); ++n) where[alone.particles.id[n]] = n;
  int64_t differing = 0;
  const Particles& p = shared.particles;
  const Particles& r = alone.particles;
  for (size_t n = 0; n < p.size(); ++n) {
    auto found = where.find(p.id[n]);
    differing += found == where.end() || p.x[n] != r.x[found->second] ||
                 p.y[n] != r.y[found->second] || p.z[n] != r.z[found->second];
  }
  Topology world(MPI_COMM_WORLD, config.cells, 2);
  EXPECT_EQ(global_sum(world, differing), 0);
}

// The nozzle's water for 0.25 s (the jet reaches the floor and the ball splashes): the
// same particles as a one-rank run, within test_dam_break's bound on rank-count differences.
TEST(Emission, PouringRunMatchesOneRankRun) {
  SKIP_IN_A_ONE_RANK_JOB();
  const CaseConfig config = nozzle_case();
  auto run = [&](Simulation& sim) {
    while (sim.time() < 0.25) sim.step(sim.stable_dt());
  };
  int64_t emitted_alone = 0;
  const Particles reference = test::one_rank_reference(config, [&](Simulation& alone) {
    run(alone);
    emitted_alone = alone.emitted_particles();
  });
  MPI_Bcast(&emitted_alone, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  Simulation sim(config, MPI_COMM_WORLD);
  run(sim);
  EXPECT_GT(emitted_alone, 0);
  EXPECT_EQ(global_sum(sim.topology(), sim.emitted_particles()), emitted_alone);
  const test::RunComparison comparison = test::compare_with_reference(sim, reference);
  test::expect_same_particles(comparison);
  RecordProperty("max_position_difference_m", std::to_string(comparison.position));
  EXPECT_LT(comparison.position, test::kRankCountToleranceCells * config.cell_size);
}

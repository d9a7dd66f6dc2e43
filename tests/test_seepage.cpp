// Soaked sand giving water back (seepage) and free water held back by the sand it flows
// through (Darcy's drag), on 1, 2 and 4 ranks: the rates against Darcy's law, conservation
// of water to round-off, and the same new particles on any rank count.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <tuple>

#include "decomposition/reductions.hpp"
#include "src/grid/boundaries.hpp"
#include "src/wet/darcy_drag.hpp"
#include "src/particles/seeding.hpp"
#include "src/wet/seepage.hpp"
#include "src/driver/simulation.hpp"
#include "tests/scenes.hpp"
#include "tests/world_ranks.hpp"

using namespace dunesim;

namespace {

MaterialSpec soaked_sand(double conductivity) {
  MaterialSpec sand;
  sand.name = "sand";
  sand.kind = MaterialKind::Sand;
  sand.density = 1600;
  sand.wet.porosity = 0.4;
  sand.wet.ideal_saturation = 0.01;  // so no face's release is capped by the water above S'
  sand.wet.conductivity = conductivity;
  return sand;
}

// A 0.2 m box at 2 cm cells with a saturated sand block of 4 x 4 x 3 cells hanging in it
// (nothing moves: only the seepage stage runs) and a water material to seep into.
CaseConfig hanging_block_case(double conductivity) {
  CaseConfig c = test::water_box_case({0.2, 0.2, 0.2}, 0.02, {0, 0, 0}, {0, 0, 0});
  c.materials.push_back(soaked_sand(conductivity));
  c.sources[0].material = 1;
  c.sources[0].shape.min = {0.06, 0.06, 0.08};
  c.sources[0].shape.max = {0.14, 0.14, 0.14};
  c.sources[0].saturation = 1.0;
  c.jitter = 0.5;  // every particle stays in its cell: 8 per cell
  return c;
}

// One call of the seepage stage on a fresh scene.
struct Seeped {
  Particles particles;                                     // this rank's, after the stage
  double water_before = 0, water_after = 0, released = 0;  // all ranks
  int64_t created = 0;                                     // all ranks
};

double total_water(const Topology& topo, const Particles& p) {
  double sum = 0;
  for (size_t n = 0; n < p.size(); ++n) sum += p.water_content[n];
  return global_sum(topo, sum);
}

Seeped seep_once(const CaseConfig& config, MPI_Comm comm, double start, double dt) {
  Topology topo(comm, config.cells, 3);
  Halo halo(topo);
  MacGrid grid;
  grid.allocate(topo, config.cell_size);
  grid.allocate_pore_water(topo);
  mark_static_solids(config, grid.solid);
  Seeped out;
  out.particles = seed_particles(config, topo, grid.solid);
  out.water_before = total_water(topo, out.particles);
  const SeepageStats s =
      release_seepage(topo, halo, config, config.materials[1], 7, start, dt, grid, out.particles);
  out.water_after = total_water(topo, out.particles);
  out.released = global_sum(topo, s.released);
  out.created = global_sum(topo, s.particles_created);
  return out;
}

}  // namespace

// Saturated sand passes Darcy's flux K (unit gradient) through each face it shares with an
// open cell below or beside it: over one release period T = dx / (8 K) that is one particle
// volume, dx^3 / 8, per face. The block has 16 faces below and 48 beside (none above).
TEST(Seepage, SaturatedBlockReleasesDarcysFluxThroughItsOpenFaces) {
  const double conductivity = 1e-3;
  const CaseConfig config = hanging_block_case(conductivity);
  const double period = seepage_period(config.materials[1].wet, config.cell_size);
  EXPECT_DOUBLE_EQ(period, 0.02 / (8 * conductivity));
  const Seeped s = seep_once(config, MPI_COMM_WORLD, 0.5 * period, period);
  const double faces = 4 * 4 + 4 * 4 * 3;
  const double face_area = 0.02 * 0.02, particle_volume = std::pow(0.02, 3) / 8;
  const double darcy = conductivity * faces * face_area * period / particle_volume;
  EXPECT_EQ(s.created, int64_t(faces));
  EXPECT_NEAR(s.released, darcy, 1e-12 * darcy);
  // Water is conserved to round-off (the sums run over ~800 terms of order 1).
  EXPECT_NEAR(s.water_after, s.water_before, 1e-12 * s.water_before);
  // No new particle above the block, none inside it.
  const Particles& p = s.particles;
  for (size_t n = 0; n < p.size(); ++n) {
    if (p.material[n] != 0) continue;
    EXPECT_LT(p.z[n], 0.14);
    const bool inside = p.x[n] > 0.06 && p.x[n] < 0.14 && p.y[n] > 0.06 && p.y[n] < 0.14 &&
                        p.z[n] > 0.08 && p.z[n] < 0.14;
    EXPECT_FALSE(inside) << p.x[n] << " " << p.y[n] << " " << p.z[n];
    EXPECT_LT(p.id[n], 0);
  }
}

// Releases happen at multiples of T only; a step between two gives nothing. Sand below
// saturation (capillary suction holds its water) never seeps.
TEST(Seepage, NothingBetweenReleasesOrFromUnsaturatedSand) {
  CaseConfig config = hanging_block_case(1e-3);
  const double period = seepage_period(config.materials[1].wet, config.cell_size);
  EXPECT_EQ(seep_once(config, MPI_COMM_WORLD, 0.1 * period, 0.5 * period).created, 0);
  config.sources[0].saturation = 0.99;
  EXPECT_EQ(seep_once(config, MPI_COMM_WORLD, 0.5 * period, period).created, 0);
}

TEST(Seepage, SameParticlesOnAnyRankCount) {
  SKIP_IN_A_ONE_RANK_JOB();
  const CaseConfig config = hanging_block_case(1e-3);
  const double period = seepage_period(config.materials[1].wet, config.cell_size);
  const Seeped alone = seep_once(config, MPI_COMM_SELF, 0.5 * period, period);
  const Seeped shared = seep_once(config, MPI_COMM_WORLD, 0.5 * period, period);
  std::map<int64_t, std::tuple<double, double, double, double>> reference;
  for (size_t n = 0; n < alone.particles.size(); ++n)
    if (alone.particles.material[n] == 0)
      reference[alone.particles.id[n]] = {alone.particles.x[n], alone.particles.y[n],
                                          alone.particles.z[n], alone.particles.water_content[n]};
  int64_t differing = 0;
  const Particles& p = shared.particles;
  for (size_t n = 0; n < p.size(); ++n) {
    if (p.material[n] != 0) continue;
    auto found = reference.find(p.id[n]);
    differing += found == reference.end() ||
                 found->second != std::make_tuple(p.x[n], p.y[n], p.z[n], p.water_content[n]);
  }
  Topology world(MPI_COMM_WORLD, config.cells, 3);
  EXPECT_EQ(global_sum(world, differing), 0);
  EXPECT_EQ(shared.created, alone.created);
}

// Under gravity alone, water in resting sand settles at Darcy's velocity relative to the
// sand: the flux n v equals K under a unit gradient, so v = K / n, whatever the step.
TEST(DarcyDrag, WaterInRestingSandSettlesAtDarcysVelocity) {
  for (double conductivity : {1e-4, 1e-3, 1e-2}) {
    CaseConfig config = hanging_block_case(conductivity);
    const MaterialSpec& sand = config.materials[1];
    Topology topo(MPI_COMM_SELF, config.cells, 3);
    MacGrid grid;
    grid.allocate(topo, config.cell_size);
    grid.allocate_pore_water(topo);
    Particles p;
    for (int m : {1, 0}) {  // a resting sand grain and a water particle in one cell
      p.x.push_back(0.1f), p.y.push_back(0.1f), p.z.push_back(0.1f);
      p.vx.push_back(0), p.vy.push_back(0), p.vz.push_back(0);
      p.id.push_back(m), p.material.push_back(uint8_t(m)), p.water_content.push_back(m ? 0.4 : 1);
    }
    const double dt = 2e-3;
    for (int step = 0; step < 2000; ++step) {
      p.vz[1] += float(config.gravity[2] * dt);
      apply_darcy_drag(config.materials, sand, config.gravity, dt, grid, p);
    }
    const double darcy = conductivity / sand.wet.porosity;
    EXPECT_NEAR(-p.vz[1], darcy, 1e-5 * darcy) << "K = " << conductivity;
    EXPECT_EQ(p.vz[0], 0.0f);  // the drag acts on the water only
  }
}

// A soaked mud block slumping on the floor of a box beside a water pool, with every wet
// stage active: the water of the run, free plus held in the pores, is conserved to
// round-off while seepage releases new particles.
TEST(Seepage, SlumpingSoakedBlockConservesWater) {
  MaterialSpec sand = soaked_sand(2e-2);
  sand.wet.ideal_saturation = 0.4;
  sand.wet.propagation_rate = 1e-3;
  Simulation sim(test::soaked_block_beside_pool(sand), MPI_COMM_WORLD);
  const double before = total_water(sim.topology(), sim.particles());
  while (sim.time() < 0.4 - 1e-12) sim.step(std::min(sim.stable_dt(), 0.4 - sim.time()));
  const double after = total_water(sim.topology(), sim.particles());
  const int64_t seeped = global_sum(sim.topology(), sim.seeped_particles());
  if (sim.topology().rank() == 0)
    std::printf("water %.12f -> %.12f (%.1e relative), %lld particles seeped\n", before, after,
                after / before - 1, (long long)seeped);
  EXPECT_GT(seeped, 0);
  EXPECT_NEAR(after, before, 1e-12 * before);
}

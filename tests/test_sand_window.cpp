// The sand's grid arrays and the pressure solver's multigrid levels follow the sand, not the
// domain (MacGrid::sand_window, the multigrid's windows): the same small heap in a domain
// four times taller, the extra height empty air, must not take more of that memory. With
// arrays over each rank's whole block it would take about four times as much.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "decomposition/reductions.hpp"
#include "src/particles/sand_window.hpp"
#include "src/driver/simulation.hpp"
#include "tests/scenes.hpp"
#include "tests/world.hpp"

using namespace dunesim;

namespace {

constexpr double kCell = 0.01;

// A 6 cm cube of dry sand on the floor of a 20 cm square domain `height` metres tall.
CaseConfig heap_case(double height) {
  CaseConfig c =
      test::sand_box_case({0.2, 0.2, height}, kCell, {0.07, 0.07, 0.0}, {0.13, 0.13, 0.06}, 30.0);
  c.wall_friction = 0.6;
  return c;
}

// Sand-window bytes of all ranks together after a few steps of the slumping cube, and the
// window itself.
struct SandStorage {
  double bytes;
  double multigrid_bytes;
  Box window;
  Box grid;  // the global cells with the wall layers around them
};
SandStorage sand_storage_after_steps(double height) {
  Simulation sim(heap_case(height), MPI_COMM_WORLD);
  for (int n = 0; n < 5; ++n) sim.step(sim.stable_dt());
  const Topology& topo = sim.topology();
  return {global_sum(topo, double(sim.grid().sand_window_bytes())),
          global_sum(topo, double(sim.multigrid_bytes())), sim.grid().sand_window,
          topo.global(Stagger::Cell).grown(topo.ghost())};
}

}  // namespace

// Bound: the window is the same in both domains (the sand is), so on one rank the bytes are
// equal. On 2 and 4 ranks the two domains are cut differently, and each block that crosses
// the window holds its ghost layers of it too: 2 ghost cells on either side of a cut through
// a window about 22 cells wide add up to 4 / 22 per cut, so at most 50% on 4 ranks.
TEST(SandWindow, SandStorageDoesNotGrowWithEmptyDomain) {
  const SandStorage low = sand_storage_after_steps(0.2);
  const SandStorage tall = sand_storage_after_steps(0.8);
  ASSERT_GT(low.bytes, 0.0);
  EXPECT_TRUE(tall.window == low.window);
  const int ranks = test::world_size();
  if (ranks == 1) EXPECT_EQ(tall.bytes, low.bytes);
  EXPECT_LE(tall.bytes, 1.5 * low.bytes) << "the tall domain's sand arrays grew with its air";
}

// The same bound for the multigrid levels (level l's window is level 0's halved, plus a
// layer): the heap is the only fluid.
TEST(SandWindow, MultigridLevelsDoNotGrowWithEmptyDomain) {
  const SandStorage low = sand_storage_after_steps(0.2);
  const SandStorage tall = sand_storage_after_steps(0.8);
  ASSERT_GT(low.multigrid_bytes, 0.0);
  if (test::world_size() == 1) EXPECT_EQ(tall.multigrid_bytes, low.multigrid_bytes);
  EXPECT_LE(tall.multigrid_bytes, 1.5 * low.multigrid_bytes)
      << "the tall domain's multigrid levels grew with its air";
}

// The window holds the sand cells with the stencils' reach around them, and no more than
// reach and slack beyond them (here the cube's 6 cells, which slump by a cell or two in five
// steps).
TEST(SandWindow, WindowHoldsTheSandWithItsReach) {
  const SandStorage low = sand_storage_after_steps(0.2);
  const Box sand_start{{7, 7, 0}, {13, 13, 6}};
  const Box reach = overlap(sand_start.grown(kSandWindowReach), low.grid);
  EXPECT_TRUE(overlap(low.window, reach) == reach);
  for (int a = 0; a < 3; ++a)
    EXPECT_LE(low.window.hi[a] - low.window.lo[a],
              6 + 2 * 2 + 2 * (kSandWindowReach + kSandWindowSlack))
        << "axis " << a;
}

// A sand cube dropped from 0.3 m: the window follows it down, refitted on the way, and the
// cube lands whole. The particles' count is kept, and the sand ends on the floor (its
// lowest grain within two cells of it), which it cannot reach if a refit loses the sand's
// cells or its arrays stop covering it.
TEST(SandWindow, WindowFollowsFallingSand) {
  CaseConfig c =
      test::sand_box_case({0.2, 0.2, 0.4}, kCell, {0.07, 0.07, 0.3}, {0.13, 0.13, 0.36}, 30.0);
  c.wall_friction = 0.6;
  Simulation sim(c, MPI_COMM_WORLD);
  const int64_t particles = global_sum(sim.topology(), int64_t(sim.particles().size()));
  sim.step(sim.stable_dt());
  const Box first = sim.grid().sand_window;
  while (sim.time() < 0.3) sim.step(sim.stable_dt());  // it lands after 0.25 s
  const Box last = sim.grid().sand_window;
  EXPECT_LT(last.hi[2], first.lo[2]) << "the window did not follow the sand down";
  EXPECT_EQ(global_sum(sim.topology(), int64_t(sim.particles().size())), particles);
  double lowest = 1e9;
  for (size_t n = 0; n < sim.particles().size(); ++n)
    lowest = std::min(lowest, double(sim.particles().z[n]));
  EXPECT_LT(global_min(sim.topology(), lowest), 2 * kCell);
}

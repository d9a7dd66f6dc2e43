// Velocity extrapolation into air (src/grid/extrapolation.hpp) on 1, 2 and 4 ranks, against
// the rule its header states worked out plainly over the whole grid: every face touching a
// fluid cell keeps its velocity; each of `layers` layers gives every face without one that has
// face-neighbours with one (same component) their average; faces further out keep what they
// had. Every owned face must match, whatever the ranks' cuts through the band.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "decomposition/halo.hpp"
#include "decomposition/reductions.hpp"
#include "decomposition/topology.hpp"
#include "src/grid/extrapolation.hpp"
#include "src/grid/mac_grid.hpp"

using namespace dunesim;

namespace {

constexpr int kCells[3] = {18, 15, 13};
constexpr int kLayers = 2;
constexpr double kNoVelocity = -999.0;  // what faces beyond the band keep

// An L-shaped body with a notch and a lone cell, kept more than kLayers + 1 cells from the
// walls (the band near a wall reaches the ghosts beyond it, which this plain rule leaves out).
bool fluid(int i, int j, int k) {
  const bool base =
      i >= 4 && i < 12 && j >= 4 && j < 10 && k >= 4 && k < 7 && !(i == 8 && j == 6);
  const bool tower = i >= 4 && i < 6 && j >= 4 && j < 7 && k >= 7 && k < 9;
  const bool lone = i == 14 && j == 11 && k == 8;
  return base || tower || lone;
}

// Fluid inside the domain; cells outside it are walls, never fluid.
bool fluid_cell(int i, int j, int k) {
  const bool inside =
      i >= 0 && i < kCells[0] && j >= 0 && j < kCells[1] && k >= 0 && k < kCells[2];
  return inside && fluid(i, j, k);
}

// Whether face (i, j, k) of component a touches a fluid cell: a face with a velocity of its own.
bool touches_fluid(int a, int i, int j, int k) {
  return fluid_cell(i, j, k) || fluid_cell(i - (a == 0), j - (a == 1), k - (a == 2));
}

// The known faces' velocities: different along every axis, so that an average taken over the
// wrong neighbours shows.
double known_velocity(int a, int i, int j, int k) {
  return 1.0 + a + 0.37 * i - 0.21 * j + 0.13 * k + 0.011 * i * j;
}

// Component a's faces over the whole grid, i fastest: (n_a + 1) along a.
struct FaceGrid {
  Index3 n;
  std::vector<double> value;
  std::vector<bool> has_velocity;
  explicit FaceGrid(int a) : n{kCells[0], kCells[1], kCells[2]} {
    n[a] += 1;
    value.assign(size_t(n[0]) * n[1] * n[2], kNoVelocity);
    has_velocity.assign(value.size(), false);
  }
  bool contains(int i, int j, int k) const {
    return i >= 0 && i < n[0] && j >= 0 && j < n[1] && k >= 0 && k < n[2];
  }
  size_t at(int i, int j, int k) const {
    return size_t(i) + size_t(n[0]) * (j + size_t(n[1]) * k);
  }
};

// The rule, plainly: the known faces, then kLayers layers of averages.
FaceGrid reference(int a) {
  FaceGrid f(a);
  for (int k = 0; k < f.n[2]; ++k)
    for (int j = 0; j < f.n[1]; ++j)
      for (int i = 0; i < f.n[0]; ++i) {
        if (touches_fluid(a, i, j, k)) {
          f.value[f.at(i, j, k)] = known_velocity(a, i, j, k);
          f.has_velocity[f.at(i, j, k)] = true;
        }
      }
  for (int layer = 0; layer < kLayers; ++layer) {
    std::vector<std::pair<size_t, double>> next;
    for (int k = 0; k < f.n[2]; ++k)
      for (int j = 0; j < f.n[1]; ++j)
        for (int i = 0; i < f.n[0]; ++i) {
          if (f.has_velocity[f.at(i, j, k)]) continue;
          double sum = 0;
          int count = 0;
          for (int d = 0; d < 3; ++d)
            for (int side : {-1, 1}) {
              Index3 m{i, j, k};
              m[d] += side;
              if (f.contains(m[0], m[1], m[2]) && f.has_velocity[f.at(m[0], m[1], m[2])]) {
                sum += f.value[f.at(m[0], m[1], m[2])];
                ++count;
              }
            }
          if (count > 0) next.push_back({f.at(i, j, k), sum / count});
        }
    for (const auto& [face, value] : next) {
      f.value[face] = value;
      f.has_velocity[face] = true;
    }
  }
  return f;
}

TEST(Extrapolation, LayersOfAveragesMatchTheRuleOnEveryRankLayout) {
  Topology topo(MPI_COMM_WORLD, {kCells[0], kCells[1], kCells[2]}, kLayers);
  Halo halo(topo);
  MacGrid g;
  g.allocate(topo, 0.01);
  for_each_index(topo.local(Stagger::Cell), [&](int i, int j, int k) {
    g.cell_type(i, j, k) = fluid_cell(i, j, k) ? kFluid : kAir;
  });
  std::array<FaceGrid, 3> expected{reference(0), reference(1), reference(2)};
  for (int a = 0; a < 3; ++a)
    for_each_index(g.vel[a].box(), [&](int i, int j, int k) {
      g.vel[a](i, j, k) = touches_fluid(a, i, j, k) ? known_velocity(a, i, j, k) : kNoVelocity;
    });

  extrapolate_velocity(g, halo, kLayers);

  int extrapolated = 0, mismatched = 0;
  for (int a = 0; a < 3; ++a) {
    const Stagger s = face_stagger(a);
    const FaceGrid& f = expected[a];
    for_each_index(topo.owned(s).intersect(topo.global(s)), [&](int i, int j, int k) {
      const double want = f.value[f.at(i, j, k)];
      const double got = g.vel[a](i, j, k);
      const bool known = touches_fluid(a, i, j, k);
      if (want != kNoVelocity && !known) ++extrapolated;
      if (std::abs(got - want) > 1e-12 * (1.0 + std::abs(want)) && ++mismatched <= 5)
        ADD_FAILURE() << "component " << a << " face (" << i << ", " << j << ", " << k
                      << "): " << got << ", the rule gives " << want;
    });
  }
  EXPECT_EQ(mismatched, 0);
  // The band is there at all on some rank (a test that extrapolates nothing proves nothing).
  EXPECT_GT(global_sum(topo, int64_t(extrapolated)), 1000);
}

}  // namespace

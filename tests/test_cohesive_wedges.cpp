// Culmann's wedges with cohesion on hand-built columns (src/sand/cohesive_wedges.hpp): which
// columns slide, without a simulation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "src/sand/cohesive_wedges.hpp"

namespace dunesim {
namespace {

constexpr double kCell = 0.01, kGravity = 9.81, kDensity = 1600, kHeight = 0.2;
constexpr double kTanPhi = 0.612;  // eq. 2's resting block friction for phi = 30

// Rankine's critical cohesion of a vertical cut 0.2 m high, phi = 30.
const double kCutCritical =
    kDensity * kGravity * kHeight / (4 * std::tan((45.0 + 30.0 / 2) * M_PI / 180));

// n x n columns of 1 cm, sand 0.2 m high where `sand(i, j)`, every cell of it with
// `cohesion`.
WedgeColumns columns(const std::function<bool(int, int)>& sand, double cohesion, int n = 12) {
  WedgeColumns c;
  c.ni = c.nj = n;
  c.k0 = 0;
  c.nk = int(std::lround(kHeight / kCell));
  c.dx = kCell;
  c.gravity = kGravity;
  const size_t count = size_t(c.ni) * size_t(c.nj);
  c.top.assign(count, 0.0f);
  c.density.assign(count, 0.0f);
  c.cohesion.assign(count * size_t(c.nk), 0.0f);
  c.tan_phi.assign(count * size_t(c.nk), float(kTanPhi));
  c.sand.assign(count * size_t(c.nk), 0);
  for (int i = 0; i < c.ni; ++i)
    for (int j = 0; j < c.nj; ++j) {
      if (!sand(i, j)) continue;
      const size_t column = c.at(i, j);
      c.top[column] = float(kHeight);
      c.density[column] = float(kDensity);
      for (int k = 0; k < c.nk; ++k) {
        c.cohesion[c.cell(column, k)] = float(cohesion);
        c.sand[c.cell(column, k)] = 1;
      }
    }
  return c;
}

// Columns of the fin, x from 4 to 6 and y under 6, that slide.
int sliding_fin_columns(const WedgeColumns& c) {
  const std::vector<float> lowest = lowest_sliding_planes(c);
  int sliding = 0;
  for (int i = 4; i <= 6; ++i)
    for (int j = 0; j < 6; ++j) sliding += std::isfinite(lowest[c.at(i, j)]);
  return sliding;
}

// How many columns slide.
int sliding_columns(const WedgeColumns& c) {
  const std::vector<float> lowest = lowest_sliding_planes(c);
  return int(
      std::count_if(lowest.begin(), lowest.end(), [](float z) { return std::isfinite(z); }));
}

}  // namespace

// A fin of sand 3 cm thick and 0.2 m high, at 1.25 times the critical cohesion of a vertical
// cut of its height: each slice across it weighs a free-standing wall, which needs more
// cohesion than a cut, and slides. Standing free the whole fin slides; grown out of a wide
// block (y from 6 up, the whole width) it is held, slice by slice, by the sand beside it that
// does not slide (a short chord of a round column's rim is such a fin).
TEST(CohesiveWedges, AFinSlidesAloneAndIsHeldByTheBodyItGrowsFrom) {
  const auto fin = [](int i, int j) { return i >= 4 && i <= 6 && j < 6; };
  const auto fin_and_block = [&](int i, int j) { return fin(i, j) || j >= 6; };
  EXPECT_EQ(sliding_fin_columns(columns(fin, 1.25 * kCutCritical)), 3 * 6);
  EXPECT_EQ(sliding_fin_columns(columns(fin_and_block, 1.25 * kCutCritical)), 0);
  // Strong enough, the fin stands alone too.
  EXPECT_EQ(sliding_fin_columns(columns(fin, 4 * kCutCritical)), 0);
}

// A round column 0.2 m across and 0.2 m high, narrower than a cut's Rankine wedge (11.5 cm),
// and its quarter in the corner of two symmetry walls (a case's frictionless_walls). The
// quarter's planes go on through the walls into its mirror image, so it stands and fails at
// the whole column's cohesions: at 1.25 times the cut's critical cohesion neither slides, at
// 0.8 both do. (With the walls holding the planes that meet them, as other walls do, the
// quarter stood at 0.8.)
TEST(CohesiveWedges, AQuarterAgainstSymmetryWallsSlidesWhereTheWholeBodyDoes) {
  constexpr int kRadius = 10;  // cells
  const auto within = [](int i, int j) {
    return (i + 0.5) * (i + 0.5) + (j + 0.5) * (j + 0.5) < kRadius * kRadius;
  };
  const auto quarter = [&](int i, int j) { return within(i, j); };
  const auto whole = [&](int i, int j) {
    return within(i < kRadius + 2 ? kRadius + 1 - i : i - kRadius - 2,
                  j < kRadius + 2 ? kRadius + 1 - j : j - kRadius - 2);
  };
  const int n = kRadius + 2;  // the quarter's columns along x and y
  for (double ratio : {1.25, 0.8}) {
    WedgeColumns q = columns(quarter, ratio * kCutCritical, n);
    q.symmetry = {true, false, true, false};
    const WedgeColumns w = columns(whole, ratio * kCutCritical, 2 * n);
    const std::vector<float> q_lowest = lowest_sliding_planes(q),
                             w_lowest = lowest_sliding_planes(w);
    int quarter_sliding = 0, differ = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const bool slides = std::isfinite(q_lowest[q.at(i, j)]);
        quarter_sliding += slides;
        differ += slides != std::isfinite(w_lowest[w.at(n + i, n + j)]);
      }
    EXPECT_EQ(differ, 0) << "at " << ratio;
    if (ratio > 1)
      EXPECT_EQ(quarter_sliding, 0) << "at " << ratio;
    else
      EXPECT_GT(quarter_sliding, 0) << "at " << ratio;
    std::printf("c / c_crit %.2f: %d of the quarter's columns slide, %d of the whole's\n", ratio,
                quarter_sliding, sliding_columns(w));
  }
}

// A block of sand 0.2 m high, strong enough to stand (4 times a cut's critical cohesion), with
// a bulge one column wide hanging off its face over an air gap, 5 cm to 15 cm up (what a
// sliding block pushes past a face under it). With its cohesion the bulge hangs; with its
// cohesion broken, it falls, with the sand above it, and nothing else moves.
TEST(CohesiveWedges, HangingSandFallsWhereItsCohesionIsBroken) {
  for (bool broken : {false, true}) {
    WedgeColumns c = columns([](int i, int) { return i < 6; }, 4 * kCutCritical);
    for (int j = 0; j < c.nj; ++j)
      for (int k = 5; k < 15; ++k) {
        const size_t cell = c.cell(c.at(6, j), k);
        c.sand[cell] = 1;
        c.cohesion[cell] = broken ? 0.0f : float(4 * kCutCritical);
      }
    const std::vector<float> lowest = lowest_sliding_planes(c);
    for (int i = 0; i < c.ni; ++i)
      for (int j = 0; j < c.nj; ++j) {
        const float expected = broken && i == 6 ? float(5 * kCell) : INFINITY;
        EXPECT_FLOAT_EQ(lowest[c.at(i, j)], expected) << "column " << i << ", " << j;
      }
  }
}

// A vertical cut whose face runs at 45 degrees to the grid's columns (sand where i + j < 30,
// a staircase of single columns), 0.2 m high, against a straight cut along the columns (sand
// where i < 20): the diagonal slices weigh the one as the axes' slices weigh the other, so
// both slide at the same cohesions: below Rankine's critical cohesion (at 0.95 and under) and
// not above it (the bracket: sliding at 0.8, standing at 1.25). (In the simulation the
// diagonal cut, a prism in the corner of two symmetry walls, ran out 18.2 cm at 0.95 and stood
// from 1.0 on 2 ranks, as the straight cut does.)
TEST(CohesiveWedges, ACutAt45DegreesToTheGridFailsWhereAStraightCutDoes) {
  const auto diagonal = [](int i, int j) { return i + j < 30; };
  const auto straight = [](int i, int) { return i < 20; };
  for (double ratio : {0.8, 0.9, 0.95, 1.0, 1.05, 1.25}) {
    const int diagonal_sliding = sliding_columns(columns(diagonal, ratio * kCutCritical, 40));
    const int straight_sliding = sliding_columns(columns(straight, ratio * kCutCritical, 40));
    EXPECT_EQ(diagonal_sliding > 0, straight_sliding > 0) << "at " << ratio;
    if (ratio <= 0.9) EXPECT_GT(diagonal_sliding, 0) << "at " << ratio;
    if (ratio >= 1.25) EXPECT_EQ(diagonal_sliding, 0) << "at " << ratio;
    std::printf("c / c_crit %.2f: %d columns of the diagonal cut slide, %d of the straight\n",
                ratio, diagonal_sliding, straight_sliding);
  }
}

// A cantilever of cohesive sand 4 cm long and 5 cm thick, 10 to 15 cm up the face of a block
// 0.2 m high: its weight hangs on the cohesion of the vertical plane at its root, so it falls
// below c = rho g L (628 Pa) and hangs above it (each strip's weight rho g L h against c h).
// The block, at 1.25 and more times a cut's critical cohesion, stands either way.
TEST(CohesiveWedges, ACantileverFallsWhereItsRootCannotCarryItsWeight) {
  constexpr int kBlock = 6, kLength = 4, kBottom = 10, kThickness = 5;
  const double root_critical = kDensity * kGravity * kLength * kCell;
  for (double ratio : {0.9, 1.1}) {
    const double cohesion = ratio * root_critical;
    WedgeColumns c = columns([](int i, int) { return i < kBlock; }, cohesion);
    for (int i = kBlock; i < kBlock + kLength; ++i)
      for (int j = 0; j < c.nj; ++j) {
        c.density[c.at(i, j)] = float(kDensity);
        for (int k = kBottom; k < kBottom + kThickness; ++k) {
          c.sand[c.cell(c.at(i, j), k)] = 1;
          c.cohesion[c.cell(c.at(i, j), k)] = float(cohesion);
        }
      }
    const std::vector<float> lowest = lowest_sliding_planes(c);
    for (int i = 0; i < c.ni; ++i)
      for (int j = 0; j < c.nj; ++j) {
        const bool in_cantilever = i >= kBlock && i < kBlock + kLength;
        const float expected = ratio < 1 && in_cantilever ? float(kBottom * kCell) : INFINITY;
        EXPECT_FLOAT_EQ(lowest[c.at(i, j)], expected)
            << "at " << ratio << ", column " << i << ", " << j;
      }
  }
}

}  // namespace dunesim

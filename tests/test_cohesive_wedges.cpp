// Culmann's wedges with cohesion on hand-built columns (src/sand/cohesive_wedges.hpp): which
// columns slide, without a simulation.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "src/sand/cohesive_wedges.hpp"

namespace dunesim {
namespace {

constexpr double kCell = 0.01, kGravity = 9.81, kDensity = 1600, kHeight = 0.2;
constexpr double kTanPhi = 0.612;  // eq. 2's resting block friction for phi = 30

// 12 x 12 columns of 1 cm, sand 0.2 m high where `sand(i, j)`, every cell of it with
// `cohesion`.
WedgeColumns columns(const std::function<bool(int, int)>& sand, double cohesion) {
  WedgeColumns c;
  c.ni = c.nj = 12;
  c.k0 = 0;
  c.nk = int(std::lround(kHeight / kCell));
  c.dx = kCell;
  c.gravity = kGravity;
  const size_t n = size_t(c.ni) * size_t(c.nj);
  c.top.assign(n, 0.0f);
  c.density.assign(n, 0.0f);
  c.cohesion.assign(n * size_t(c.nk), 0.0f);
  c.tan_phi.assign(n * size_t(c.nk), float(kTanPhi));
  for (int i = 0; i < c.ni; ++i)
    for (int j = 0; j < c.nj; ++j) {
      if (!sand(i, j)) continue;
      const size_t column = c.at(i, j);
      c.top[column] = float(kHeight);
      c.density[column] = float(kDensity);
      for (int k = 0; k < c.nk; ++k) c.cohesion[c.cell(column, k)] = float(cohesion);
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

}  // namespace

// A fin of sand 3 cm thick and 0.2 m high, at 1.25 times the critical cohesion of a vertical
// cut of its height: each slice across it weighs a free-standing wall, which needs more
// cohesion than a cut, and slides. Standing free the whole fin slides; grown out of a wide
// block (y from 6 up, the whole width) it is held, slice by slice, by the sand beside it that
// does not slide (a short chord of a round column's rim is such a fin).
TEST(CohesiveWedges, AFinSlidesAloneAndIsHeldByTheBodyItGrowsFrom) {
  const double cut_critical =
      kDensity * kGravity * kHeight / (4 * std::tan((45.0 + 30.0 / 2) * M_PI / 180));
  const auto fin = [](int i, int j) { return i >= 4 && i <= 6 && j < 6; };
  const auto fin_and_block = [&](int i, int j) { return fin(i, j) || j >= 6; };
  EXPECT_EQ(sliding_fin_columns(columns(fin, 1.25 * cut_critical)), 3 * 6);
  EXPECT_EQ(sliding_fin_columns(columns(fin_and_block, 1.25 * cut_critical)), 0);
  // Strong enough, the fin stands alone too.
  EXPECT_EQ(sliding_fin_columns(columns(fin, 4 * cut_critical)), 0);
}

}  // namespace dunesim

// Culmann's wedges with cohesion on hand-built columns (src/sand/cohesive_wedges.hpp): which
// columns slide, without a simulation; and the columns' strengths as runs (strength_runs.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <stdexcept>
#include <vector>

#include "src/sand/cohesive_wedges.hpp"

namespace dunesim {
namespace {

constexpr double kCell = 0.01, kGravity = 9.81, kDensity = 1600, kHeight = 0.2;
constexpr double kTanPhi = 0.612;  // eq. 2's resting block friction for phi = 30

// Rankine's critical cohesion of a vertical cut 0.2 m high, phi = 30.
const double kCutCritical =
    kDensity * kGravity * kHeight / (4 * std::tan((45.0 + 30.0 / 2) * M_PI / 180));

// Each cell's cohesion where it holds sand, nothing where it holds none.
using CellCohesion = std::function<std::optional<double>(int i, int j, int k)>;

// n x n columns of 1 cm and 0.2 m of layers, each cell's sand and cohesion from `cell`, no
// column standing (top 0, weightless: stand_columns).
WedgeColumns columns_of_cells(int n, const CellCohesion& cell) {
  WedgeColumns c;
  c.ni = c.nj = n;
  c.k0 = 0;
  c.nk = int(std::lround(kHeight / kCell));
  c.dx = kCell;
  c.gravity = kGravity;
  const size_t count = size_t(c.ni) * size_t(c.nj);
  c.top.assign(count, 0.0f);
  c.density.assign(count, 0.0f);
  std::vector<ColumnRun> runs;
  for (int i = 0; i < c.ni; ++i)
    for (int j = 0; j < c.nj; ++j)
      for (int k = 0; k < c.nk; ++k) {
        const std::optional<double> cohesion = cell(i, j, k);
        const StrengthRun strength{0, cohesion ? float(*cohesion) : 0.0f, float(kTanPhi),
                                   uint8_t(cohesion ? 1 : 0)};
        extend_runs(runs, c.at(i, j), k + 1, strength);
      }
  c.strengths = ColumnStrengths(count, c.k0, c.nk, std::move(runs));
  return c;
}

// The columns where `stands(i, j)` stand 0.2 m high and weigh the sand's density.
void stand_columns(WedgeColumns& c, const std::function<bool(int, int)>& stands) {
  for (int i = 0; i < c.ni; ++i)
    for (int j = 0; j < c.nj; ++j)
      if (stands(i, j)) {
        c.top[c.at(i, j)] = float(kHeight);
        c.density[c.at(i, j)] = float(kDensity);
      }
}

// n x n columns of 1 cm, sand 0.2 m high where `sand(i, j)`, every cell of it with
// `cohesion`.
WedgeColumns columns(const std::function<bool(int, int)>& sand, double cohesion, int n = 12) {
  WedgeColumns c = columns_of_cells(n, [&](int i, int j, int) -> std::optional<double> {
    if (sand(i, j)) return cohesion;
    return std::nullopt;
  });
  stand_columns(c, sand);
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
  const auto block = [](int i, int) { return i < 6; };
  for (bool broken : {false, true}) {
    WedgeColumns c = columns_of_cells(12, [&](int i, int j, int k) -> std::optional<double> {
      if (block(i, j)) return 4 * kCutCritical;
      if (i == 6 && k >= 5 && k < 15) return broken ? 0.0 : 4 * kCutCritical;
      return std::nullopt;
    });
    stand_columns(c, block);
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
    const auto block = [](int i, int) { return i < kBlock; };
    const auto cantilever = [](int i, int k) {
      return i >= kBlock && i < kBlock + kLength && k >= kBottom && k < kBottom + kThickness;
    };
    WedgeColumns c = columns_of_cells(12, [&](int i, int j, int k) -> std::optional<double> {
      if (block(i, j) || cantilever(i, k)) return cohesion;
      return std::nullopt;
    });
    stand_columns(c, block);
    for (int i = kBlock; i < kBlock + kLength; ++i)
      for (int j = 0; j < c.nj; ++j) c.density[c.at(i, j)] = float(kDensity);
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

// The last search is reused only for the same columns (WedgeSearchMemo): any change the
// search reads, in a column's top or density, a cell's strength or sand, or the walls, the
// gravity, the cells' size or the rules for layers, makes them different columns.
TEST(CohesiveWedges, ColumnsThatDifferInAnythingTheSearchReadsAreNotTheSame) {
  const auto block = [](int i, int) { return i < 6; };
  const WedgeColumns base = columns(block, kCutCritical);
  EXPECT_TRUE(same_columns(base, columns(block, kCutCritical)));
  auto cell_changed = [&](std::optional<double> changed) {
    WedgeColumns c = columns_of_cells(12, [&](int i, int j, int k) -> std::optional<double> {
      if (i == 3 && j == 4 && k == 7) return changed;
      if (block(i, j)) return kCutCritical;
      return std::nullopt;
    });
    stand_columns(c, block);
    return c;
  };
  EXPECT_FALSE(same_columns(base, cell_changed(0.0)));           // its cohesion broken
  EXPECT_FALSE(same_columns(base, cell_changed(std::nullopt)));  // no sand
  std::vector<WedgeColumns> changed(7, base);
  changed[0].top[changed[0].at(8, 2)] = float(kCell);
  changed[1].density[changed[1].at(2, 2)] = float(kDensity + 1);
  changed[2].symmetry[1] = true;
  changed[3].layered = true;
  changed[4].gravity = 9.8;
  changed[5].dx = 0.011;
  changed[6] = columns(block, kCutCritical, 13);
  for (size_t n = 0; n < changed.size(); ++n) EXPECT_FALSE(same_columns(base, changed[n])) << n;
}

// Each rank sends its owned cells as runs of one strength down each column (layers of different
// strength, a shearing cell, the air above); the runs gathered from three ranks, which split
// the columns along z and arrive in any order, give every cell its own strength back, and a
// uniform column is one run.
TEST(StrengthRuns, PiecesFromSeveralRanksGiveEveryCellItsStrength) {
  constexpr int kColumns = 5, kK0 = 2, kLayers = 12;
  auto strength_of = [](size_t column, int k) {
    if (column == 4) return StrengthRun{0, 300.0f, 0.6f, 1};                // uniform
    if (k >= kK0 + 9) return StrengthRun{0, 0.0f, 0.58f, 0};                // air
    if (column == 2 && k == kK0 + 3) return StrengthRun{0, 0.0f, 0.7f, 1};  // shearing
    return k < kK0 + 5 ? StrengthRun{0, 1500.0f, 0.7f, 1} : StrengthRun{0, 0.0f, 0.58f, 1};
  };
  std::vector<std::vector<ColumnRun>> ranks(3);
  const int splits[4] = {kK0, kK0 + 3, kK0 + 8, kK0 + kLayers};
  for (int r = 0; r < 3; ++r)
    for (size_t column = 0; column < kColumns; ++column)
      for (int k = splits[r]; k < splits[r + 1]; ++k)
        extend_runs(ranks[r], column, k + 1, strength_of(column, k));
  std::vector<ColumnRun> gathered;
  for (int r : {2, 0, 1}) gathered.insert(gathered.end(), ranks[r].begin(), ranks[r].end());
  const ColumnStrengths strengths(kColumns, kK0, kLayers, gathered);
  for (size_t column = 0; column < kColumns; ++column)
    for (int k = kK0; k < kK0 + kLayers; ++k) {
      const StrengthRun& cell = *strengths.at(column, k);
      EXPECT_TRUE(cell.same_strength(strength_of(column, k))) << column << ", " << k;
      EXPECT_GT(cell.end, k);
    }
  EXPECT_EQ(strengths.at(4, kK0), strengths.at(4, kK0 + kLayers - 1));  // one run
  EXPECT_FLOAT_EQ(strengths.weakest_tan_phi(), 0.58f);
  // Runs that leave a column's top cells out are refused.
  gathered.erase(std::remove_if(gathered.begin(), gathered.end(),
                                [](const ColumnRun& r) {
                                  return r.column == 3 && r.run.end == kK0 + kLayers;
                                }),
                 gathered.end());
  EXPECT_THROW(ColumnStrengths(kColumns, kK0, kLayers, gathered), std::logic_error);
}

}  // namespace dunesim

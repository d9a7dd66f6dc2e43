// The particle sort: cell order, stability, and every attribute travelling with its particle.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "src/particles/particle_sort.hpp"

using namespace dunesim;

namespace {

constexpr double kCellSize = 0.1;

int64_t cell_index(const Box& cells, double x, double y, double z) {
  const int i = int(std::floor(x / kCellSize)) - cells.lo[0];
  const int j = int(std::floor(y / kCellSize)) - cells.lo[1];
  const int k = int(std::floor(z / kCellSize)) - cells.lo[2];
  const int64_t nx = cells.hi[0] - cells.lo[0], ny = cells.hi[1] - cells.lo[1];
  return i + nx * (j + ny * k);
}

}  // namespace

// 20,000 particles in a 10 x 8 x 6 block (about 40 per cell, so every cell holds many),
// numbered in their original order. After the sort: cells ascend in x-fastest order, ids
// ascend within each cell (the sort is stable), and every attribute is the one its id was
// given, the affine velocity's nine (one row of 36 bytes, moved a word at a time) included.
// All comparisons are exact: the sort only moves values.
TEST(ParticleSort, OrdersByCellStablyAndKeepsAttributesTogether) {
  const Box cells{{2, 3, 1}, {12, 11, 7}};
  Particles p;
  const size_t n = 20000;
  uint64_t state = 12345;
  auto uniform = [&state](double lo, double hi) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (hi - lo) * double(state >> 11) / double(uint64_t(1) << 53);
  };
  p.resize(n);
  p.carry_affine(true);
  std::vector<double> x0(n), y0(n), z0(n);
  for (size_t q = 0; q < n; ++q) {
    x0[q] = p.x[q] = uniform(cells.lo[0] * kCellSize, cells.hi[0] * kCellSize);
    y0[q] = p.y[q] = uniform(cells.lo[1] * kCellSize, cells.hi[1] * kCellSize);
    z0[q] = p.z[q] = uniform(cells.lo[2] * kCellSize, cells.hi[2] * kCellSize);
    p.vx[q] = float(q);
    p.vy[q] = -float(q);
    p.vz[q] = 0.5f * float(q);
    p.id[q] = int64_t(q);
    p.material[q] = uint8_t(q % 7);
    for (int e = 0; e < 9; ++e) p.affine[q][e] = float(9 * q + e);
  }

  sort_particles_by_cell(cells, kCellSize, p);

  ASSERT_EQ(p.size(), n);
  std::vector<int> seen(n, 0);
  for (size_t q = 0; q < n; ++q) {
    const int64_t id = p.id[q];
    ASSERT_GE(id, 0);
    ASSERT_LT(id, int64_t(n));
    ++seen[size_t(id)];
    EXPECT_EQ(p.x[q], x0[size_t(id)]);
    EXPECT_EQ(p.y[q], y0[size_t(id)]);
    EXPECT_EQ(p.z[q], z0[size_t(id)]);
    EXPECT_EQ(p.vx[q], float(id));
    EXPECT_EQ(p.vy[q], -float(id));
    EXPECT_EQ(p.vz[q], 0.5f * float(id));
    EXPECT_EQ(p.material[q], uint8_t(id % 7));
    for (int e = 0; e < 9; ++e) EXPECT_EQ(p.affine[q][e], float(9 * id + e));
    if (q == 0) continue;
    const int64_t before = cell_index(cells, p.x[q - 1], p.y[q - 1], p.z[q - 1]);
    const int64_t here = cell_index(cells, p.x[q], p.y[q], p.z[q]);
    EXPECT_LE(before, here) << "cells out of order at " << q;
    if (before == here) EXPECT_LT(p.id[q - 1], id) << "not stable at " << q;
  }
  for (size_t id = 0; id < n; ++id) EXPECT_EQ(seen[id], 1) << "id " << id;
}

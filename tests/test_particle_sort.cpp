// The particle sort: cell order, stability, and every attribute travelling with its particle.
#include <gtest/gtest.h>

#include <array>
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

constexpr size_t kParticles = 20000;
const Box kCells{{2, 3, 1}, {12, 11, 7}};

// 20,000 particles in a 10 x 8 x 6 block (about 40 per cell, so every cell holds many),
// numbered in their original order, every attribute made from the number; `x0` gets their
// positions.
Particles numbered_particles(std::vector<std::array<double, 3>>& x0) {
  Particles p;
  uint64_t state = 12345;
  auto uniform = [&state](double lo, double hi) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (hi - lo) * double(state >> 11) / double(uint64_t(1) << 53);
  };
  p.resize(kParticles);
  p.carry_affine(true);
  x0.resize(kParticles);
  for (size_t q = 0; q < kParticles; ++q) {
    p.x[q] = uniform(kCells.lo[0] * kCellSize, kCells.hi[0] * kCellSize);
    p.y[q] = uniform(kCells.lo[1] * kCellSize, kCells.hi[1] * kCellSize);
    p.z[q] = uniform(kCells.lo[2] * kCellSize, kCells.hi[2] * kCellSize);
    x0[q] = {p.x[q], p.y[q], p.z[q]};
    p.vx[q] = float(q);
    p.vy[q] = -float(q);
    p.vz[q] = 0.5f * float(q);
    p.id[q] = int64_t(q);
    p.material[q] = uint8_t(q % 7);
    for (int e = 0; e < 9; ++e) p.affine[q][e] = float(9 * q + e);
  }
  return p;
}

// Expects cells in ascending x-fastest order, ids ascending within each cell (a stable
// sort), each id once, and every attribute but the affine velocity the one its id was given.
// All comparisons are exact: the sort only moves values.
void expect_sorted_with_attributes(const Particles& p,
                                   const std::vector<std::array<double, 3>>& x0) {
  ASSERT_EQ(p.size(), kParticles);
  std::vector<int> seen(kParticles, 0);
  for (size_t q = 0; q < kParticles; ++q) {
    const int64_t id = p.id[q];
    ASSERT_GE(id, 0);
    ASSERT_LT(id, int64_t(kParticles));
    ++seen[size_t(id)];
    EXPECT_EQ(p.x[q], x0[size_t(id)][0]);
    EXPECT_EQ(p.y[q], x0[size_t(id)][1]);
    EXPECT_EQ(p.z[q], x0[size_t(id)][2]);
    EXPECT_EQ(p.vx[q], float(id));
    EXPECT_EQ(p.vy[q], -float(id));
    EXPECT_EQ(p.vz[q], 0.5f * float(id));
    EXPECT_EQ(p.material[q], uint8_t(id % 7));
    if (q == 0) continue;
    const int64_t before = cell_index(kCells, p.x[q - 1], p.y[q - 1], p.z[q - 1]);
    const int64_t here = cell_index(kCells, p.x[q], p.y[q], p.z[q]);
    EXPECT_LE(before, here) << "cells out of order at " << q;
    if (before == here) EXPECT_LT(p.id[q - 1], id) << "not stable at " << q;
  }
  for (size_t id = 0; id < kParticles; ++id) EXPECT_EQ(seen[id], 1) << "id " << id;
}

}  // namespace

// The affine velocity's nine (one row of 36 bytes, moved a word at a time) travel with
// their particle too.
TEST(ParticleSort, OrdersByCellStablyAndKeepsAttributesTogether) {
  std::vector<std::array<double, 3>> x0;
  Particles p = numbered_particles(x0);
  sort_particles_by_cell(kCells, kCellSize, p);
  expect_sorted_with_attributes(p, x0);
  for (size_t q = 0; q < kParticles; ++q)
    for (int e = 0; e < 9; ++e) EXPECT_EQ(p.affine[q][e], float(9 * p.id[q] + e));
}

// Where the step sorts (after P2G, before G2P rewrites every row) the affine rows stay where
// they were while every other attribute moves.
TEST(ParticleSort, CanLeaveTheAffineRowsInPlace) {
  std::vector<std::array<double, 3>> x0;
  Particles p = numbered_particles(x0);
  sort_particles_by_cell(kCells, kCellSize, p, AffineRows::Leave);
  expect_sorted_with_attributes(p, x0);
  int64_t moved = 0;
  for (size_t q = 0; q < kParticles; ++q) {
    moved += p.id[q] != int64_t(q);
    for (int e = 0; e < 9; ++e) EXPECT_EQ(p.affine[q][e], float(9 * q + e));
  }
  EXPECT_GT(moved, 0);
}

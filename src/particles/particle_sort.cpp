#include "src/particles/particle_sort.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace dunesim {

namespace {

// The high bit of a particle's slot marks it moved in the current pass (see permute).
constexpr uint32_t kMovedBit = 1u << 31;

// Moves values[q] to values[slot[q]] for every particle, in place, along the cycles of the
// permutation: each value is read and written once, and nothing the size of the array is
// added at the step where a large run's memory peaks (a scratch array was 4 bytes a
// particle: 2% of the 1e8 dune's peak). Between sorts particles change cell by little, so a
// cycle's steps stay near each other in memory (this cost about a tenth more than moving
// each 4-byte word through a scratch array). A slot's high bit says whether its particle
// has moved in this pass; `moved` is the bit's value that means so, flipped after every
// pass, so that no pass has to clear the marks.
template <class T>
void permute(ParticleVector<T>& values, std::vector<uint32_t>& slot, uint32_t& moved) {
  T* v = values.data();
  const size_t n = values.size();
  for (size_t q = 0; q < n; ++q) {
    if ((slot[q] & kMovedBit) == moved) continue;
    slot[q] ^= kMovedBit;
    size_t to = slot[q] & ~kMovedBit;
    if (to == q) continue;
    T carried = v[q];
    while (to != q) {
      std::swap(carried, v[to]);
      slot[to] ^= kMovedBit;
      to = slot[to] & ~kMovedBit;
    }
    v[q] = carried;
  }
  moved ^= kMovedBit;
}

}  // namespace

void sort_particles_by_cell(const Box& cells, double dx, Particles& p, AffineRows affine) {
  const size_t n = p.size();
  if (n >= kMovedBit)
    throw std::length_error("particle sort: a rank holds " + std::to_string(n) +
                            " particles; at most 2^31 - 1 can be sorted");
  const int nx = cells.hi[0] - cells.lo[0], ny = cells.hi[1] - cells.lo[1],
            nz = cells.hi[2] - cells.lo[2];
  auto clamp_index = [](double g, int lo, int count) {
    return std::clamp(int(std::floor(g)) - lo, 0, count - 1);
  };
  // A counting sort. `slot` holds each particle's cell first, then its place in the
  // sorted order; 31 bits suffice for one rank's particles and cells. The counts cover the
  // planes from the lowest particle's to the highest's only (the dune's sand fills the
  // lower 60% of its block), which keeps the order: cells go up in k, then j, then i.
  std::vector<uint32_t> slot(n);
  int lowest = nz, highest = -1;
  for (size_t q = 0; q < n; ++q) {
    int i = clamp_index(p.x[q] / dx, cells.lo[0], nx),
        j = clamp_index(p.y[q] / dx, cells.lo[1], ny),
        k = clamp_index(p.z[q] / dx, cells.lo[2], nz);
    lowest = std::min(lowest, k);
    highest = std::max(highest, k);
    slot[q] = uint32_t(i + int64_t(nx) * (j + int64_t(ny) * k));
  }
  if (n == 0) return;
  const uint32_t first_cell = uint32_t(int64_t(nx) * ny * lowest);
  std::vector<uint32_t> start(size_t(nx) * ny * (highest - lowest + 1) + 1, 0);
  for (size_t q = 0; q < n; ++q) ++start[slot[q] - first_cell + 1];
  for (size_t c = 1; c < start.size(); ++c) start[c] += start[c - 1];
  for (size_t q = 0; q < n; ++q) slot[q] = start[slot[q] - first_cell]++;
  start = {};
  uint32_t moved = kMovedBit;
  p.for_each_array([&](auto& values) {
    const bool is_affine = static_cast<const void*>(&values) == &p.affine;
    if (!(is_affine && affine == AffineRows::Leave)) permute(values, slot, moved);
  });
}

}  // namespace dunesim

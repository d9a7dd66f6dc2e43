#include "src/particles/particle_sort.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace dunesim {

namespace {

// Moves values[q] to values[slot[q]] for every particle, through `scratch`, 4 bytes a
// particle: the largest temporary the sort adds. A copy of each array would add 8 bytes a
// particle for the positions and ids (36 for the affine velocity), at the step where a
// large run's memory peaks. Longer values move a 4-byte word at a time: each pass writes
// back only its own word of every value, which the later passes do not read. (Swapping particles
// into place would need no scratch, but measured 3-4x slower: each swap's target is known only
// after the last one, a chain of cache misses.) `scratch` and `slot` are heap memory that the
// step's other stages free again, so the sort reuses it rather than mapping more.
template <class T>
void permute(ParticleVector<T>& values, const std::vector<uint32_t>& slot,
             std::vector<uint32_t>& scratch) {
  static_assert(sizeof(T) == 1 || sizeof(T) % 4 == 0);
  const size_t n = values.size();
  char* bytes = reinterpret_cast<char*>(values.data());
  if constexpr (sizeof(T) == 1) {
    unsigned char* moved = reinterpret_cast<unsigned char*>(scratch.data());
    for (size_t q = 0; q < n; ++q) moved[slot[q]] = static_cast<unsigned char>(bytes[q]);
    std::memcpy(bytes, moved, n);
  } else {
    for (size_t w = 0; w < sizeof(T) / 4; ++w) {
      char* word = bytes + 4 * w;
      for (size_t q = 0; q < n; ++q) std::memcpy(&scratch[slot[q]], word + q * sizeof(T), 4);
      for (size_t q = 0; q < n; ++q) std::memcpy(word + q * sizeof(T), &scratch[q], 4);
    }
  }
}

}  // namespace

void sort_particles_by_cell(const Box& cells, double dx, Particles& p, AffineRows affine) {
  const size_t n = p.size();
  const int nx = cells.hi[0] - cells.lo[0], ny = cells.hi[1] - cells.lo[1],
            nz = cells.hi[2] - cells.lo[2];
  auto clamp_index = [](double g, int lo, int count) {
    return std::clamp(int(std::floor(g)) - lo, 0, count - 1);
  };
  // A counting sort. `slot` holds each particle's cell first, then its place in the
  // sorted order; 32 bits suffice for one rank's particles and cells.
  std::vector<uint32_t> slot(n);
  std::vector<uint32_t> start(size_t(cells.volume()) + 1, 0);
  for (size_t q = 0; q < n; ++q) {
    int i = clamp_index(p.x[q] / dx, cells.lo[0], nx),
        j = clamp_index(p.y[q] / dx, cells.lo[1], ny),
        k = clamp_index(p.z[q] / dx, cells.lo[2], nz);
    slot[q] = uint32_t(i + int64_t(nx) * (j + int64_t(ny) * k));
    ++start[slot[q] + 1];
  }
  for (size_t c = 1; c < start.size(); ++c) start[c] += start[c - 1];
  for (size_t q = 0; q < n; ++q) slot[q] = start[slot[q]]++;
  start = {};
  std::vector<uint32_t> scratch(n);
  p.for_each_array([&](auto& values) {
    const bool is_affine = static_cast<const void*>(&values) == &p.affine;
    if (!(is_affine && affine == AffineRows::Leave)) permute(values, slot, scratch);
  });
}

}  // namespace dunesim

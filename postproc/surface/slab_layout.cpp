#include "postproc/surface/slab_layout.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dunesim {

namespace {

// The grid's first and last sample index along axis `a`, in floating point.
std::pair<double, double> sample_span(const Vec3& particle_min, const Vec3& particle_max,
                                      double kernel_radius, double spacing, int a) {
  return {std::floor((particle_min[a] - kernel_radius) / spacing),
          std::ceil((particle_max[a] + kernel_radius) / spacing)};
}

}  // namespace

std::array<double, 3> grid_samples(const Vec3& particle_min, const Vec3& particle_max,
                                   double kernel_radius, double spacing) {
  std::array<double, 3> samples;
  for (int a = 0; a < 3; ++a) {
    const auto [first, last] = sample_span(particle_min, particle_max, kernel_radius, spacing, a);
    samples[a] = last - first + 1;
  }
  return samples;
}

SlabLayout make_slab_layout(const Vec3& particle_min, const Vec3& particle_max,
                            double kernel_radius, double spacing, int ranks, int ghost_layers) {
  SlabLayout layout;
  layout.spacing = spacing;
  layout.ghost_layers = ghost_layers;
  for (int a = 0; a < 3; ++a) {
    const auto [first, last] = sample_span(particle_min, particle_max, kernel_radius, spacing, a);
    if (!(std::abs(first) < 0x1p62 && std::abs(last) < 0x1p62))
      throw std::runtime_error("the particles lie too far out for the sample lattice");
    layout.lo[a] = int64_t(first);
    layout.hi[a] = int64_t(last);
    if (layout.hi[a] - layout.lo[a] > layout.hi[layout.axis] - layout.lo[layout.axis])
      layout.axis = a;
  }
  const int64_t cells = layout.hi[layout.axis] - layout.lo[layout.axis];
  for (int p = 0; p <= ranks; ++p)
    layout.cuts.push_back(layout.lo[layout.axis] + cells * p / ranks);
  return layout;
}

SampleBlock SlabLayout::sampled_block(int rank) const {
  SampleBlock block;
  block.spacing = spacing;
  for (int a = 0; a < 3; ++a) {
    int64_t first = lo[a], last = hi[a];
    if (a == axis) {
      first = std::max(cuts[rank] - ghost_layers, lo[a]);
      last = std::min(cuts[rank + 1] + ghost_layers, hi[a]);
    }
    block.first[a] = first;
    block.samples[a] = int(last - first + 1);
  }
  return block;
}

SampleRange SlabLayout::slab_range(int rank) const {
  const SampleBlock block = sampled_block(rank);
  SampleRange range;
  for (int a = 0; a < 3; ++a) range.hi[a] = block.samples[a] - 1;
  range.lo[axis] = int(cuts[rank] - block.first[axis]);
  range.hi[axis] = int(cuts[rank + 1] - block.first[axis]);
  return range;
}

std::pair<double, double> SlabLayout::particle_band(int rank, double reach) const {
  const SampleBlock block = sampled_block(rank);
  const double first = double(block.first[axis]) * spacing;
  const double last = double(block.first[axis] + block.samples[axis] - 1) * spacing;
  return {first - reach, last + reach};
}

}  // namespace dunesim

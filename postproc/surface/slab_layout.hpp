// How dunesim_surface splits the sample grid among the ranks. The grid is the lattice of
// samples I * spacing (I integer, one lattice for all frames) over the particles' bounding
// box widened by the kernel radius R. Its cells are cut into P slabs of nearly equal width
// along the box's longest axis; rank p samples the planes cuts[p] to cuts[p + 1], so that
// neighbouring ranks share one plane of samples. Each rank also samples `ghost_layers`
// planes beyond its slab (for the smoothing and the normals) and needs every particle within
// R of what it samples.
#pragma once
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "decomposition/vec3.hpp"
#include "postproc/surface/sampled_field.hpp"

namespace dunesim {

struct SlabLayout {
  double spacing = 0;
  std::array<int64_t, 3> lo{0, 0, 0}, hi{0, 0, 0};  // the grid's samples, inclusive
  int axis = 0;                                     // the axis the slabs are cut along
  std::vector<int64_t> cuts;                        // P + 1 sample planes along `axis`
  int ghost_layers = 0;

  int ranks() const { return int(cuts.size()) - 1; }
  // A rank whose slab has no cells (more ranks than cells) samples nothing.
  bool has_slab(int rank) const { return cuts[rank + 1] > cuts[rank]; }
  // The samples rank `rank` computes: its slab and the ghost planes, within the grid.
  SampleBlock sampled_block(int rank) const;
  // Its slab within sampled_block(rank): the samples it contours.
  SampleRange slab_range(int rank) const;
  // The coordinates along `axis` between which it needs particles: what it samples, widened
  // by `reach` (R and a margin).
  std::pair<double, double> particle_band(int rank, double reach) const;
};

// The grid's number of samples, computed in floating point for the size check that comes
// before any integer conversion: (hi - lo + 1) per axis over the widened box.
std::array<double, 3> grid_samples(const Vec3& particle_min, const Vec3& particle_max,
                                   double kernel_radius, double spacing);

// The layout for `ranks` ranks; the grid must have passed the size check. Throws
// std::runtime_error when a sample index would not fit in 63 bits.
SlabLayout make_slab_layout(const Vec3& particle_min, const Vec3& particle_max,
                            double kernel_radius, double spacing, int ranks, int ghost_layers);

}  // namespace dunesim

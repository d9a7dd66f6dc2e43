// The narrow band of a level set as dunesim_surface's ranks find it in their slabs of phi:
// the samples at either end of every lattice edge across which phi changes sign. These are
// exactly the samples the surface's vertices are interpolated from, so the level set's zero
// crossing is the triangle surface's.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "postproc/surface/sampled_field.hpp"
#include "postproc/surface/slab_layout.hpp"

namespace dunesim {

struct LevelSetBand {
  std::vector<int32_t> index;  // lattice indices i, j, k per voxel
  std::vector<float> phi;      // one per voxel
  size_t size() const { return phi.size(); }
};

// The band's samples among the planes this rank owns: those of its slab, less the last plane
// unless it is the grid's (the next rank's first), so that every sample has one owner. The
// neighbours across a cut are the ghost planes, whose values are those of the whole grid.
// Throws std::runtime_error when a lattice index does not fit OpenVDB's 32-bit coordinates.
LevelSetBand crossing_band(const SampledField& field, const SlabLayout& layout, int rank);

// Collective: every rank's band on rank 0, in rank order; empty elsewhere. Throws
// std::runtime_error on every rank when the whole band is too large for MPI's int counts.
LevelSetBand gather_band(MPI_Comm comm, const LevelSetBand& band);

}  // namespace dunesim

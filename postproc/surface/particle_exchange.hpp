// Sending the particles that dunesim_surface's ranks read to the ranks that need them.
#pragma once
#include <mpi.h>

#include <vector>

#include "decomposition/vec3.hpp"
#include "postproc/surface/slab_layout.hpp"

namespace dunesim {

// Collective. Sends each of this rank's `positions` to every rank whose particle band
// (SlabLayout::particle_band with `reach`) contains it, with one MPI_Alltoallv, and returns
// what this rank received, sorted (x, then y, then z). Sorted, the particles that reach a
// sample are summed into its phi in an order that depends on nothing but the particles, so
// a sample that two ranks share gets the same phi on both, to the last bit, whatever the
// number of ranks. Throws AgreedError on every rank when the counts pass MPI's int.
std::vector<Vec3> exchange_particles(MPI_Comm comm, const std::vector<Vec3>& positions,
                                     const SlabLayout& layout, double reach);

}  // namespace dunesim

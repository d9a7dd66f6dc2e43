// Sending the particles that dunesim_surface's ranks read to the ranks that need them.
#pragma once
#include <mpi.h>

#include <vector>

#include "decomposition/vec3.hpp"
#include "postproc/surface/slab_layout.hpp"

namespace dunesim {

// Particles as a rank of dunesim_surface holds them: positions, and one value each (the
// saturation) when the frame has one.
struct SurfaceParticles {
  std::vector<Vec3> position;
  bool has_values = false;    // the same on every rank: the frame has the values
  std::vector<double> value;  // one per position when has_values
};

// Collective. Sends each of this rank's particles to every rank whose particle band
// (SlabLayout::particle_band with `reach`) contains it, with one MPI_Alltoallv, and returns
// what this rank received, sorted (x, then y, then z, then the value). Sorted, the particles
// that reach a sample are summed into its phi in an order that depends on nothing but the
// particles, so a sample that two ranks share gets the same phi on both, to the last bit,
// whatever the number of ranks. Throws AgreedError on every rank when the counts pass MPI's
// int.
SurfaceParticles exchange_particles(MPI_Comm comm, const SurfaceParticles& mine,
                                    const SlabLayout& layout, double reach);

}  // namespace dunesim

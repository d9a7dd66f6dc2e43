// dunesim_surface --vdb: a frame's OpenVDB level sets, one per material.
#pragma once
#include <mpi.h>

#include <string>

#include "postproc/surface/frame_surface.hpp"

namespace dunesim {

// Collective. Writes the .vdb file `path` on rank 0: one level-set grid per material of the
// frame that has particles, named after it (only options.material when it is given), from
// that material's phi. `phi` is what the surface was made from: with options.material, or
// with a frame of one material, it is that material's, and is used as it is; otherwise each
// material's phi is sampled anew. The band is gathered on rank 0, which builds and writes
// the grids. Throws AgreedError on every rank, naming `path` when it cannot be written.
void write_frame_level_sets(MPI_Comm comm, const std::string& frame,
                            const SurfaceOptions& options, const SlabPhi& phi,
                            const std::string& path);

}  // namespace dunesim

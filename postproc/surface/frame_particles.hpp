// A dunesim frame's particles for dunesim_surface (frame layout: io/README.md). Every rank
// reads its own contiguous share of the rows with collective hyperslab reads through the
// MPI-IO driver (io/parallel_hdf5): no rank reads the whole frame.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "decomposition/vec3.hpp"

namespace dunesim {

struct FrameParticles {
  std::vector<Vec3> position;  // this rank's share, of the chosen material
  // /particles/saturation of the same particles (S of wet sand, 1 for water, 0 for dry sand);
  // empty when the frame has none (has_saturation false on every rank)
  bool has_saturation = false;
  std::vector<double> saturation;
  int64_t rows = 0;      // particles in the frame, all materials
  double cell_size = 0;  // /run @cell_size, else /grid @cell_size; 0 when neither is there
  std::vector<std::string> material_names;  // /run's, else /particles/material @names
};

// Collective. Reads rows [rows * rank / P, rows * (rank + 1) / P) of /particles/position (and
// /particles/saturation when the frame has it) and
// keeps those whose /particles/material is named `material` in the dataset's @names (all of
// them when `material` is empty). Throws AgreedError on every rank, its message beginning
// with `path`, when the file is missing, is not a readable HDF5 file (a truncated copy), lacks
// /particles/position (N x 3) or the material, or holds a position that is not finite.
FrameParticles read_frame_particles(MPI_Comm comm, const std::string& path,
                                    const std::string& material);

}  // namespace dunesim

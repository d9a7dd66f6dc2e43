// Whether a case's grid can fit in the memory of the ranks that run it: a mistyped cell size
// should fail in `dunesim check`, not after minutes of allocating.
#pragma once
#include <mpi.h>

#include "io/case_config.hpp"

namespace dunesim {

// Collective. Throws CaseError on every rank, naming domain.cell_size, when the grid arrays
// alone (MacGrid's bytes per cell, ghost cells aside) would need more memory per rank than
// the nodes offer each rank of `comm` (physical memory or the control group's limit, shared
// by the ranks on the node). Particles and the pressure solver need more on top.
void check_grid_fits_memory(const CaseConfig& config, MPI_Comm comm);

}  // namespace dunesim

// Extends face velocities from where they are known into air, layer by layer, so that G2P
// and advection find a sensible velocity anywhere near the fluid.
#pragma once
#include "decomposition/halo.hpp"
#include "src/mac_grid.hpp"

namespace dunesim {

// Marks valid faces: those touching a fluid cell (including fluid-solid faces).
void mark_valid_faces(MacGrid& grid);

// Each of `layers` layers gives every invalid face with valid neighbours (same component,
// 6-neighbourhood) their average; only the band next to the valid faces is visited.
//
// Ranks work on their whole local array, ghosts included, and exchange once at the end:
// with layers <= ghost width, the faces an owned face depends on are all within the
// array, so owned results equal a one-rank run and the final fill makes ghosts agree.
void extrapolate_velocity(MacGrid& grid, Halo& halo, int layers);

}  // namespace dunesim

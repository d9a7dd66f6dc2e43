// Extends face velocities from where they are known into air, layer by layer, so that G2P
// and advection find a sensible velocity anywhere near the fluid.
#pragma once
#include "decomposition/halo.hpp"
#include "src/mac_grid.hpp"

namespace dunesim {

// Marks valid faces: those touching a fluid cell (including fluid-solid faces).
void mark_valid_faces(MacGrid& grid);

// Each of `layers` passes gives every invalid face with valid neighbours (same component,
// 6-neighbourhood) their average, then fills halos so ranks agree at block borders.
void extrapolate_velocity(MacGrid& grid, Halo& halo, int layers);

}  // namespace dunesim

// Extends face velocities from where they are known into air, layer by layer, so that G2P
// and advection find a sensible velocity anywhere near the fluid.
#pragma once
#include "decomposition/halo.hpp"
#include "src/grid/mac_grid.hpp"

namespace dunesim {

// Faces touching a fluid cell (fluid-solid faces included) have a velocity. Each of
// `layers` layers gives every face without one that has neighbours with one (same
// component, 6-neighbourhood) their average; only the band next to the fluid is visited.
//
// Ranks work on their whole local array, ghosts included, and exchange once at the end:
// with layers <= ghost width, the faces an owned face depends on are all within the
// array, so owned results equal a one-rank run and the final fill makes ghosts agree.
void extrapolate_velocity(MacGrid& grid, Halo& halo, int layers);

}  // namespace dunesim

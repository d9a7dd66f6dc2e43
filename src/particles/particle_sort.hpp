// Reorders a rank's particles by the cell that holds them, so that transfers walk the grid
// in memory order (particles drift out of order as they move and migrate).
#pragma once
#include "decomposition/box.hpp"
#include "decomposition/particles.hpp"

namespace dunesim {

// Stable counting sort by cell index (x fastest) within `cells`, the rank's owned block.
void sort_particles_by_cell(const Box& cells, double dx, Particles& particles);

}  // namespace dunesim

// Free water soaking into sand (Rungjiratananon et al. 2008, section 4.3; Lenaerts & Dutre
// 2009, section 4): a water particle that touches sand with room in its pores gives its
// volume to that sand's pore water and disappears, or shrinks when the sand cannot take it
// all.
#pragma once
#include <cstdint>
#include <vector>

#include "decomposition/halo.hpp"
#include "decomposition/particles.hpp"
#include "decomposition/topology.hpp"
#include "io/case_config.hpp"
#include "src/grid/mac_grid.hpp"

namespace dunesim {

struct AbsorptionStats {
  double absorbed = 0;            // water content moved into pores, this rank's sand
  int64_t particles_removed = 0;  // water particles fully absorbed, this rank
};

// One pass after migration (every particle in an owned cell). The room of a cell is
// n * (porous sand particles) - (their water content). Each water particle picks the first
// cell with room among its own and its six neighbours (the one below along gravity first)
// and asks for all its water. A cell that is asked for more than its room gives every
// asker the same fraction room / asked; its sand particles then fill up completely. A cell
// asked for less fills each of its sand particles' remaining pores by the same fraction.
// So the water lost by the particles equals the water gained by the pores to round-off,
// across ranks too (requests for ghost cells are summed into their owners, the answers
// filled back). Uses grid.pore_* as scratch; grid.solid marks cells that never take water.
AbsorptionStats absorb_free_water(const Topology& topo, Halo& halo,
                                  const std::vector<MaterialSpec>& materials,
                                  const MaterialSpec& sand, const Vec3& gravity, MacGrid& grid,
                                  Particles& particles);

}  // namespace dunesim

// Free water flowing through sand feels Darcy's drag.
//
// Darcy's law, q = -(K / (rho g)) grad p for the flux q = n (v_w - v_s) of water through
// sand of porosity n and saturated conductivity K, is a drag per unit mass of water of
// g n (v_w - v_s) / K balancing the driving force. A free water particle in a cell that
// holds porous sand has its velocity relative to the cell's mean sand velocity relaxed
// implicitly over the step:
//   v_w - v_s  <-  (v_w - v_s) / (1 + g n dt / K)
// so the drag grows as the permeability falls (K = 0 locks the water to the sand) and,
// under gravity alone, the relative velocity settles at Darcy's K / n. The particles are
// advected through the shared grid velocity; the drag acts through the momentum the water
// brings to the next transfer to the grid, and through FLIP's memory of it.
#pragma once
#include <vector>

#include "decomposition/particles.hpp"
#include "io/case_config.hpp"
#include "src/grid/mac_grid.hpp"

namespace dunesim {

// The factor 1 / (1 + g n dt / K) the relative velocity is multiplied by (0 when K = 0).
double darcy_relaxation(const WetSandSpec& sand, double gravity, double dt);

// After the grid-to-particle transfer (particles in owned cells). Uses grid.pore_* as
// scratch for the cells' sand velocities.
void apply_darcy_drag(const std::vector<MaterialSpec>& materials, const MaterialSpec& sand,
                      const Vec3& gravity, double dt, MacGrid& grid, Particles& particles);

}  // namespace dunesim

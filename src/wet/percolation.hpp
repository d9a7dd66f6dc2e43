// Pore water spreading through sand (Lenaerts & Dutre 2009, section 4.2; Rungjiratananon
// et al. 2008, section 4.5), on the grid cells of the sand. With theta the water content
// (n S) of a cell's sand, averaged over its particles:
//
//   d theta / dt = div(k_p grad theta) + d/dz_down [ K f(S) ],
//   f(S) = max(0, (S - S') / (1 - S'))
//
// The first term is capillary spreading with Rungjiratananon's propagation rate k_p as a
// diffusivity (m^2/s); the second drains sand wetter than the ideal saturation S' along
// gravity, at the saturated conductivity K when soaked (Darcy's flux under a unit gradient).
// Water moves only between cells that both hold porous sand.
//
// Explicit finite volumes in substeps of the flow's step: a face between cells L and U (U
// above L along the axis) with c sand particles on the smaller side passes
//   diffusion: k_p ds / dx^2 (theta_L - theta_U) c,   drainage: K ds / dx f(S_U) c,
// the drainage capped by U's water above S' and L's empty pores. Substeps of at most
// dx^2 / (6 k_p) keep each cell's new theta between its neighbours' (no new extremes, so
// theta stays in [0, n]); at most n (1 - S') dx / K keep the drainage within the cap. Both
// owners of a face compute its flux from the same halo-filled values, so the water one cell
// loses is what its neighbour gains, across ranks too. Afterwards every sand particle of a
// cell holds the cell's mean (water mixes within a cell).
#pragma once
#include <vector>

#include "decomposition/halo.hpp"
#include "decomposition/particles.hpp"
#include "decomposition/topology.hpp"
#include "io/case_config.hpp"
#include "src/grid/mac_grid.hpp"

namespace dunesim {

// The longest substep the scheme above allows for `sand` at cell size dx (infinity when
// the sand's water does not move), with `porosity` in place of the sand's own when > 0
// (the least porous of several sands drains its room fastest).
double percolation_substep_limit(const WetSandSpec& sand, double dx, double porosity = 0);

// Advances the pore water of every porous sand particle by dt (collective; particles in
// owned cells). Returns the number of substeps taken. Uses grid.pore_* as scratch.
int percolate_pore_water(const Topology& topo, Halo& halo,
                         const std::vector<MaterialSpec>& materials, const MaterialSpec& sand,
                         const Vec3& gravity, double dt, MacGrid& grid, Particles& particles);

}  // namespace dunesim

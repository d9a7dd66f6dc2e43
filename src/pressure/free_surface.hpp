// The free surface for the pressure's ghost-fluid condition (Gibou, Fedkiw, Cheng & Kang
// 2002; Enright, Marschner & Fedkiw 2003): p = 0 where the material's surface crosses the
// line between a fluid and an air cell centre, instead of at the air cell's centre.
//
// The surface is the level 1/2 of the cells' fill, smoothed: each cell's fill is its
// particles' share of a full cell (count / 8, at most 1), and phi = 1/2 - the fill after one
// [1 2 1] / 4 pass along each axis, with solid cells taking the value of the cell they
// face (walls are symmetry planes). A fill counts particles per cell, so it does not see
// where in the cell the seeding's jitter put them: a still tank whose cells are full is
// uniform, and p = 0 lies half a cell above the top cell centres, at the water's surface.
// A top cell filled to a share f puts the surface (2 f - 1) / (1 + f) of the way to the air
// centre above (f - 1/2 for the continuum's surface): 0.5 and 0.29 against 0.5 and 0.25 at
// f = 1 and 3/4. The particles' own implicit surface (Zhu & Bridson 2005, kernel radius
// 2 dx) followed the jitter: theta over a still tank's top cells spread by 0.03 (0.42 to
// 0.57), and the tank moved at 0.03 m/s after 100 steps.
#pragma once
#include "decomposition/halo.hpp"
#include "decomposition/particles.hpp"
#include "decomposition/topology.hpp"
#include "src/grid/mac_grid.hpp"

namespace dunesim {

// The least share of a fluid-air face's length the condition puts on the fluid side: the
// face coefficient grows as 1 / theta, so a surface at a fluid centre would make the system
// singular, and a fluid cell whose centre lies outside the surface (a cell less than half
// full) gets this share.
constexpr double kMinSurfaceFraction = 0.1;

// Sets grid.surface_phi in every local cell (halo-filled) from the particles of this rank,
// which lie in its owned cells (after migration).
void compute_surface_phi(const Particles& particles, Halo& halo, const Topology& topo,
                         MacGrid& grid);

// theta: the share of the way from a fluid cell's centre to an air neighbour's centre at
// which phi crosses zero, phi_fluid / (phi_fluid - phi_air), between kMinSurfaceFraction
// and 1. An air centre inside the surface (phi_air <= 0) gets 1: p = 0 at its centre, as
// the first-order condition has it.
inline double surface_fraction(double phi_fluid, double phi_air) {
  if (phi_air <= 0.0) return 1.0;
  if (phi_fluid >= 0.0) return kMinSurfaceFraction;
  const double theta = phi_fluid / (phi_fluid - phi_air);
  return theta < kMinSurfaceFraction ? kMinSurfaceFraction : theta;
}

}  // namespace dunesim

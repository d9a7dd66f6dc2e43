// Static friction of a sand surface on its own slope (infinite-slope stability).
//
// Zhu & Bridson's yield test judges each cell by the strain the projection leaves it. On the
// grid a sloping surface is a staircase, and the top cell of every riser has air beside it:
// the first-order projection pushes it sideways as it would push a free vertical face, which
// no cohesionless sand holds (stopping it takes about 4 times the yield stress). So every
// riser yields every step and a deposit at rest creeps flat whatever its slope
// (src/README.md, "Why Zhu & Bridson deposits creep").
//
// A slope of sand with friction mu is stable when tan(theta) < mu, and a grain sliding down
// it at speed v stops within one step when v < g dt (mu cos(theta) - sin(theta)), the speed
// Coulomb friction takes away in a step. A surface cell that meets both stays rigid, like the
// cells under it: it is the same "stops within one step" test that sigma_rigid makes, taken
// on the surface's slope instead of the staircase's riser. theta is the angle between the
// surface's outward normal, from a 3x3x3 Sobel gradient of the filled cells (sand, water
// and solid 1, air 0), and the upward direction; a staircase of single steps reads 26.6
// degrees, whatever the width of its treads below that.
#pragma once
#include "io/case_config.hpp"
#include "src/mac_grid.hpp"

namespace dunesim {

struct SurfaceRest {
  Vec3 down{0, 0, -1};  // unit vector along gravity
  double gravity = 0;   // |g|, m/s^2
  double dt = 0;        // s
};
SurfaceRest surface_rest(const Vec3& gravity, double dt);

// True when cell (i,j,k), a fluid cell with air among its six neighbours, lies on a slope
// flatter than atan(mu) and its velocity from the particles (grid.vel_saved, before this
// step's forces) is below the speed friction stops within the step. Reads cell_type one
// cell around the cell and its own faces of vel_saved.
bool surface_cell_stays_at_rest(const MacGrid& grid, int i, int j, int k, double mu,
                                const SurfaceRest& rest);

}  // namespace dunesim

// Static friction of a sand surface on its own slope (infinite-slope stability).
//
// Zhu & Bridson's yield test judges each cell by the strain the projection leaves it. On the
// grid a sloping surface is a staircase, and the top cell of every riser has air beside it:
// the first-order projection pushes it sideways as it would push a free vertical face, which
// no cohesionless sand holds (stopping it takes about 4 times the yield stress). So every
// riser yields every step and a deposit at rest creeps flat whatever its slope
// (postproc/column_collapse_findings.md, "Why Zhu & Bridson deposits creep").
//
// A slope of sand with friction mu is stable when tan(theta) < mu, and a grain sliding down
// it at speed v stops within one step when v < g dt (mu cos(theta) - sin(theta)), the speed
// Coulomb friction takes away in a step. A surface cell that meets this on either of two
// planes stays rigid, like the cells under it: it is the same "stops within one step" test
// that sigma_rigid makes, taken on a plane instead of on the staircase's riser.
//  - The surface's own slope, with the sand's mu = tan(phi): theta is the angle between the
//    surface's outward normal and the upward direction, from a smoothed gradient of the
//    filled cells (sand, water and floors 1, air 0; side walls mirror the cells beside
//    them), the flatter of two readings. The 3x3x3 Sobel gradient reads a staircase of
//    single steps two or more cells wide at 26.6 degrees but the top of a riser between
//    narrower steps at up to 45, as a 27-degree cone's circular steps have (the staircase,
//    not the surface); over 5x5x5 cells (binomial smoothing) those risers read nearer the
//    staircase's slope, but a summit plateau two or three cells wide reads its flanks. Both
//    errors steepen, so the flatter reading is the surface's (a cone 3 degrees below phi
//    keeps its summit; the collapse study's runouts did not move;
//    docs/findings/culmann_wedges_yield.md, "Staircase slopes").
//  - A floor under the cell, with the floor's Coulomb coefficient: the edge of a sheet one or
//    two cells thick reads steeper than phi, yet rests on a rough floor as a block does.
#pragma once
#include "io/case_config.hpp"
#include "src/grid/mac_grid.hpp"

namespace dunesim {

// Packed sand under a cell: at least this many sand particles in the cell below, half the
// kParticlesPerCell a cell is seeded with. A stream of grains in flight thins as it falls:
// poured at 0.25 m/s, it holds 8 * 0.25 / v particles a cell where it falls at v, two at 1 m/s.
constexpr float kPackedSandParticles = 4.0f;

struct SurfaceRest {
  Vec3 down{0, 0, -1};  // unit vector along gravity
  int vertical = 2;     // the grid axis closest to gravity's: floors lie across it
  double gravity = 0;   // |g|, m/s^2
  double dt = 0;        // s
  // Where set (friction on the effective stress, src/wet/effective_stress.hpp), the sand
  // cells: a fluid cell without sand is open as air is, so that sand under water has a
  // surface too. Otherwise only air is open (free water is filled, as in the seed papers'
  // scenes, where soaked sand is mud).
  const Array3<uint8_t>* sand_cells = nullptr;
  // Where set with it, the pore water's pressure head (grid.pore_head) and density: a cell
  // below the water table (head > 0) slides and is held by its buoyant weight, so gravity
  // counts there as g (1 - rho_w / rho), rho the cell's density.
  const Array3<double>* pore_head = nullptr;
  double pore_water_density = 0;  // kg/m^3
};
SurfaceRest surface_rest(const Vec3& gravity, double dt);

// True when cell (i,j,k), a fluid cell with air among its six neighbours, moved slower
// (grid.vel_saved: the particles' velocity, before this step's forces) than friction stops
// within the step on its surface's slope (friction mu) or on a floor below it (the floor's
// grid.wall_mu). Reads cell_type two cells around the cell, wall_mu below it and its own
// faces of vel_saved.
bool surface_cell_stays_at_rest(const MacGrid& grid, int i, int j, int k, double mu,
                                const SurfaceRest& rest);

// True when cell (i,j,k) moved slower (grid.vel_saved) than friction mu stops within the step
// on the flat, g dt mu: the fastest a cell that stays at rest on any slope can move.
bool slower_than_friction_stops(const MacGrid& grid, int i, int j, int k, double mu,
                                const SurfaceRest& rest);

// The normal stress cell (i,j,k)'s own sand puts on what it rests on: its sand's weight over
// its base, sand_count / 8 of a full cell's rho g dx (below the water table its buoyant
// weight), where the cell under it along gravity is a solid or packed sand (a sand cell with
// at least kPackedSandParticles of the 8 a cell is seeded with); 0 elsewhere, as in a stream of
// grains in flight, whose cells rest on nothing. Coulomb friction holds a resting grain with
// its weight, but the projection's pressure in a surface cell with air beside it is a
// fraction of that weight (a lone cell on a floor has a fifth of it): the yield test weighs a
// cell's strength with at least this (docs/findings/culmann_wedges_yield.md, "Slopes of
// the default model"). Reads grid.sand_count (halo-filled) under the cell.
double own_weight_pressure(const MacGrid& grid, const Array3<uint8_t>& sand_cells, int i, int j,
                           int k, const SurfaceRest& rest);

// The other half of infinite-slope stability (steep_surface_yields): true when cell
// (i,j,k), a fluid cell with air among its six neighbours and no floor under it, lies on a
// slope that friction mu and cohesion c cannot hold, that is when a column one cell deep
// on that slope, of the given density, pulls harder along it than it holds:
// rho g dx (sin(theta) - mu cos(theta)) > c. A vertical face or an overhang (cos <= 0)
// needs cohesion. Such a cell yields even at rest, where sigma_rigid would keep it rigid.
bool surface_cell_too_steep(const MacGrid& grid, int i, int j, int k, double mu, double cohesion,
                            double density, const SurfaceRest& rest);

}  // namespace dunesim

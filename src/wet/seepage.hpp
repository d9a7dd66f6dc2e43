// Soaked sand giving water back: seepage at the sand's free surface.
//
// Capillary suction holds the water of unsaturated sand, so only saturated sand (S = 1,
// positive pore pressure) lets water out, through a face it shares with an open cell (not
// solid, no porous sand) below it or beside it along gravity. Such a face passes Darcy's
// flux under a unit gradient, K per unit area, as free water. To keep the new particles
// near full size, each face releases what it passed every T = dx / (8 K) seconds (one
// particle volume, dx^3 / 8, through a full face) as one water particle whose water content
// is that volume: c / 8 for a cell of c sand particles, at most 1 (a whole particle), and
// all its open faces together no more than the cell's water above S'.
// The release times are multiples of T, a function of time only, so the stage has no state
// to checkpoint.
//
// A face's release is computed from halo-filled cell sums (ghost width >= 2) by both of its
// owners: the owner
// of the sand cell takes the water out of its pores, the owner of the open cell creates the
// particle there, with an id from created_particle_id(Seepage, step, sand cell, face), so
// water is conserved to round-off and the same particles appear on any rank count.
#pragma once
#include <cstdint>
#include <vector>

#include "decomposition/halo.hpp"
#include "decomposition/particles.hpp"
#include "decomposition/topology.hpp"
#include "io/case_config.hpp"
#include "src/grid/mac_grid.hpp"

namespace dunesim {

struct SeepageStats {
  double released = 0;            // water content leaving this rank's sand
  int64_t particles_created = 0;  // water particles created on this rank
};

// The first material of kind water (-1 if the case has none): what seeped water becomes.
int first_water_material(const std::vector<MaterialSpec>& materials);

// A water particle holding `water` in sub-cell `sub` of `cell`, jittered by the case seed
// and `id`, moving with the grid's velocity there.
void add_free_water_particle(const CaseConfig& config, const MacGrid& g, int material,
                             const Index3& cell, int sub, int64_t id, double water, Particles& p);

// The seconds between two releases of a seeping face (infinity when K = 0).
double seepage_period(const WetSandSpec& sand, double dx);

// After percolation in step `step`, which ran from step_start_time for dt (collective;
// particles in owned cells). New particles take the grid velocity at their position.
SeepageStats release_seepage(const Topology& topo, Halo& halo, const CaseConfig& config,
                             const MaterialSpec& sand, int64_t step, double step_start_time,
                             double dt, MacGrid& grid, Particles& particles);

}  // namespace dunesim

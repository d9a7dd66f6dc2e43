// Loose grains at rest hold (the material's resting_grains_hold).
//
// Zhu & Bridson's yield test stops a cell with sigma_rigid = rho dx^2 D / dt, the stress that
// stops a full cell's strain within the step, and the default model weighs a resting cell's
// strength with its own sand's weight (own_weight_pressure in surface_rest.hpp). A surface
// cell holding one to three particles, a loose grain on a slope's staircase, has that
// fraction of a full cell's weight but is asked to stop a full cell's mass: the test fails it
// on slopes well under phi, and Culmann's wedges fail it on a step's edge, where the next
// column lies a whole cell lower. Such grains crept down slopes 2 to 5 degrees under phi for
// as long as they were watched (docs/findings/culmann_wedges_yield.md, "Sand at rest
// creeps").
//
// Sand at rest holds on to its rest: granular slopes stand steeper than the slopes their
// avalanches stop on. A loose cell (fewer than kPackedSandParticles) whose sand has stayed
// slower than friction stops within a step, g dt tan(phi), for as long as a grain takes to
// fall one cell from rest, sqrt(2 dx / g), holds as what it is: the yield test weighs its
// stopping stress by its sand, sand_count / 8, and no Culmann wedge fails it (a grain is not
// a block). Sand that is moving keeps the paper's test, so a collapse's central
// cone settles for as long as its flow lasts. The steps each loose cell has rested are
// counted in grid.sand_rest_steps, which a checkpoint and a re-cut carry.
#pragma once
#include <cstdint>

#include "src/grid/mac_grid.hpp"
#include "src/sand/surface_rest.hpp"

namespace dunesim {

// The time a grain takes to fall one cell from rest, s: how long loose sand rests before it
// holds.
double settling_time(double dx, double gravity);

class RestingGrains {
 public:
  // Off (nothing holds, nothing is counted) where the grid has no sand_rest_steps.
  RestingGrains(MacGrid& g, const SurfaceRest& rest);

  // The share of a full cell's stopping stress that cell (i,j,k)'s yield test weighs: its
  // sand, sand_count / 8, where the cell is loose and has rested long enough, else 1. Read
  // before record() counts this step.
  double stopping_share(int i, int j, int k) const;
  // This step's motion of cell (i,j,k), whose friction is mu: a loose cell slower than friction
  // stops within a step rests one step longer; any other cell's rest starts again.
  void record(int i, int j, int k, double mu);

  // Cells of `last_region` (the last step's sand region) that hold no sand now rest no longer.
  static void forget_cells_without_sand(MacGrid& g, const Array3<uint8_t>& sand_cells,
                                        const Box& last_region);

 private:
  bool loose(int i, int j, int k) const { return g_.sand_count(i, j, k) < kPackedSandParticles; }
  MacGrid& g_;
  const SurfaceRest& rest_;
  bool on_;
  int steps_needed_ = 0;  // steps at rest that make settling_time at this step's dt
};

}  // namespace dunesim

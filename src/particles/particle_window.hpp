// The particle window: the box of the global grid, the same on every rank, around every
// particle's cell and the cells a step writes velocities in around it (MacGrid::
// particle_window). Outside it the grid's velocities and P2G's fields stay 0, so the
// block-wide passes of P2G and gravity cover the window alone: a heap in a large box pays
// for its surroundings only.
#pragma once
#include <algorithm>
#include <climits>

#include "decomposition/box.hpp"
#include "decomposition/particles.hpp"
#include "decomposition/topology.hpp"
#include "src/grid/interpolation.hpp"

namespace dunesim {

// Cells around a particle's cell that a step may write a velocity in: P2G's stencil (1), the
// extrapolation's layers (at most the ghost width) and one more for safety; the sand stages'
// stencils (3, sand_window.hpp) lie within.
inline int particle_window_reach(const Topology& topo) { return topo.ghost() + 2; }
// Extra cells on each side when the window is refitted, so that a moving flow refits it only
// every few steps.
constexpr int kParticleWindowSlack = 4;

// Bounding box of the cells this rank's particles for which keep(n) holds are in, as P2G
// counts them (Box{} if none).
template <class Keep>
Box local_particle_cells(const Particles& p, double dx, Keep&& keep) {
  Box found{{INT_MAX, INT_MAX, INT_MAX}, {INT_MIN, INT_MIN, INT_MIN}};
  const double inv_dx = 1.0 / dx;
  for (size_t n = 0; n < p.size(); ++n) {
    if (!keep(n)) continue;
    const GridPoint pt(p.x[n], p.y[n], p.z[n], inv_dx);  // the cell P2G counts it in
    for (int a = 0; a < 3; ++a) {
      found.lo[a] = std::min(found.lo[a], pt.node[a]);
      found.hi[a] = std::max(found.hi[a], pt.node[a] + 1);
    }
  }
  return found.empty() ? Box{} : found;
}

// The window for this step: `current` if it still holds every particle's cell with the reach
// around, else the particles' cells grown by reach and slack, cut to the grid with its wall
// layers. Box{} when no rank has particles. Collective.
Box fit_particle_window(const Topology& topo, const Particles& particles, double dx,
                        const Box& current);

}  // namespace dunesim

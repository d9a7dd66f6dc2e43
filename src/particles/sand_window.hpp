// The sand window: the box of the global grid, the same on every rank, that the grid's sand
// arrays cover (MacGrid::sand_window). A rank's sand arrays hold only its block's part of it,
// so a small heap in a large domain costs sand memory for the heap's surroundings only.
#pragma once
#include <vector>

#include "decomposition/box.hpp"
#include "decomposition/particles.hpp"
#include "decomposition/topology.hpp"
#include "io/case_config.hpp"

namespace dunesim {

// Cells a sand stage reads around a sand cell: the stress stencils and the wall friction reach
// three cells (sand_plasticity, elastic_plastic_sand, wall_friction); one more for safety.
constexpr int kSandWindowReach = 4;
// Extra cells on each side when the window is refitted, so that a moving flow refits it only
// every few steps rather than every step.
constexpr int kSandWindowSlack = 4;

// The window for this step: `current` if it still holds every sand particle's cell with
// kSandWindowReach cells around, else the particles' cells grown by reach and slack. Both
// are cut to the grid with its wall layers (`ghost` cells wide). Box{} when no rank has sand.
// Collective.
Box fit_sand_window(const Topology& topo, const Particles& particles,
                    const std::vector<MaterialSpec>& materials, double dx, const Box& current);

}  // namespace dunesim

// Culmann's wedge test for cohesionless sand at rest (culmann_wedges_yield).
//
// Zhu & Bridson's yield test weighs the strain a step leaves in a cell: sigma_rigid vanishes
// when nothing moves, so sand at rest stays rigid whatever holds it, and a released column
// fails only as fast as its face peels (postproc/column_collapse_findings.md, "A released
// face falls four times slower than a Coulomb wedge"). Coulomb statics decides more: a block
// of cohesionless sand above a plane that dips at beta > phi and daylights at a free surface
// slides, its weight pulling along the plane by W sin(beta) where friction holds at most
// W cos(beta) tan(phi) (Culmann 1866). A point lies in such a block when the plane through it
// dipping at phi, toward a free surface, daylights; with the option those cells yield even at
// rest. The planes' friction, called tan(phi) below, is the rheology's resting block friction
// (FrictionLaw::resting_block_friction): tan(phi), or under Zhu & Bridson's eq. 2 the larger
// sqrt(3/2) sin(phi) that its flowing stress resists a sliding block with, for phi below 35.26
// degrees, since sand at rest is no weaker than the same sand flowing.
//
// The test runs on the columns' tops, one height per (i, j) column of the grid: the plane
// from a cell's centre (height z, column x) in horizontal direction d daylights when it
// passes above some column's top before it meets a wall,
//   z > lowest(x) = min over s >= 0 of top(x + s d) + s tan(phi),
// taken over the grid's eight column directions. Each direction is one sweep over the
// columns, lowest_d(x) = min(top(x), lowest_d(x + d) + |d| dx tan(phi)), with the domain's
// walls beyond the last column. A column's top is the bottom of its lowest cell that holds
// neither sand nor a solid: sand above an air gap (grains in flight, the roof of a cave)
// does not block a plane, and a plane through a solid counts as through sand, so a thin
// wall inside the domain does not block it either. Water is open: a submerged slope fails
// at the same angle. Gravity is along -z (the case reader requires it).
//
// With cohesion or a wet friction the test is Coulomb's for the whole block
// (cohesive_wedges.hpp): the constructor given each cell's strength gathers the sand cells'
// strengths too, and above_sliding_plane() says whether a cell lies in a block whose weight beats
// its plane's cohesion and friction.
#pragma once
#include <functional>
#include <vector>

#include "decomposition/array3.hpp"
#include "decomposition/topology.hpp"
#include "src/sand/cohesive_wedges.hpp"
#include "src/grid/mac_grid.hpp"

namespace dunesim {

// What a sand cell lends a wedge: Coulomb's tau = c + tan(phi) sigma_n, and its weight.
struct WedgeStrength {
  double cohesion = 0;  // Pa
  double tan_phi = 0;
  double density = 0;     // kg/m^3
  bool shearing = false;  // its cohesion is broken (cohesive_wedges.hpp)
};
using CellWedgeStrength = std::function<WedgeStrength(int i, int j, int k)>;

class CulmannWedges {
 public:
  // Collective: every rank gathers every column's top from its owned cells of `sand_cells`
  // and grid.cell_type (one reduction of one float per column of the domain), then sweeps
  // the planes dipping at atan(tan_phi) over all columns.
  CulmannWedges(const Topology& topo, const MacGrid& grid, const Array3<uint8_t>& sand_cells,
                double tan_phi);
  // The same, and the blocks that slide on their cohesion and friction: `strength` is called
  // for every owned sand cell, `gravity` is g along -z (m/s^2); `layered`: the sand is of
  // several materials (WedgeColumns::layered); `symmetry`: the box walls that are mirrors.
  // Collective: a reduction of the sand's layers, a gather of every rank's owned cells of
  // them as runs of one strength down each column (strength_runs.hpp) and a reduction of a
  // float per column; then the ranks share the search for sliding planes (each tests a run
  // of the faces, WedgeSearchShare) and combine the sliding heights, one reduction of a float
  // per column and direction, and one more for each round of the side test.
  // `memo` (may be null): the last search, reused when the columns are the same
  // (WedgeSearchMemo), and updated after a new one.
  CulmannWedges(const Topology& topo, const MacGrid& grid, const Array3<uint8_t>& sand_cells,
                double tan_phi, const CellWedgeStrength& strength, double gravity, bool layered,
                const SymmetryWalls& symmetry, WedgeSearchMemo* memo);

  // True when the centre of cell (i, j, k) lies above a plane dipping at atan(tan_phi) that
  // daylights at a free surface (an index outside the domain's columns: false).
  bool above_daylighting_plane(int i, int j, int k) const;

  // True when the centre of cell (i, j, k) lies in a block that slides on its plane's
  // cohesion and friction (the second constructor only; otherwise false).
  bool above_sliding_plane(int i, int j, int k) const;

  // The lowest height, m, at which a plane dipping at atan(tan_phi) from column (i, j)
  // daylights.
  double lowest_daylight(int i, int j) const { return lowest_[column(i, j)]; }

 private:
  size_t column(int i, int j) const {
    return size_t(i - columns_.lo[0]) * size_t(columns_.hi[1] - columns_.lo[1]) +
           size_t(j - columns_.lo[1]);
  }

  Box columns_;  // the domain's cells; its k range is unused
  double dx_ = 0;
  std::vector<float> top_;      // per column, m
  std::vector<float> lowest_;   // per column, m
  std::vector<float> sliding_;  // per column, m; empty without strengths
};

}  // namespace dunesim

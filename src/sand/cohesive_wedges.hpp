// Culmann's wedges with cohesion: which sand above a face slides as a block.
//
// A block of sand above a plane that dips at beta toward a free face and reaches the surface
// behind it slides when its weight's pull along the plane exceeds what Coulomb's law holds
// on the plane: W sin(beta) > W cos(beta) tan(phi) + c L, with W the block's weight and L
// the plane's length (Culmann 1866). Minimised over beta this is Culmann's critical height,
// for a vertical face Rankine's H_c = (4 c / gamma) tan(45 + phi / 2). Zhu & Bridson's
// yield test cannot see it: it weighs the stress that stops one step's motion, which
// vanishes for sand at rest, so any cohesion holds any face (docs/findings/sand.md).
//
// The test runs on the domain's columns, as a two-dimensional slice along each of the eight
// column directions: each column knows its top (as in culmann_wedges.hpp) and its heaviest
// density, and each cell its sand's cohesion and friction. Planes leave every face (a
// column higher than its neighbour toward d) at each cell height of the drop; a plane is
// followed back, column by column, until it reaches the surface or a wall, summing the
// block's weight and the plane's strength (in each column that of the cell at the plane's
// midpoint there). From each exit the angle between phi and 89 degrees whose block slides
// most is searched for; if it slides, the shallowest angle that still slides lowers the
// sliding height of every column its plane crossed to its height there (steeper planes from
// the same exit lie above it). A cell whose centre lies above its column's sliding height is
// in a sliding block.
//
// A slice is a column wide, and in three dimensions a block is joined along its sides to the
// sand beside it, which holds it unless that sand slides too. So, after the slices are tested
// alone, rounds follow in which a block slides only where, in each column it crosses, the
// sand beside it at the plane's height (one column across d on either side) is none, has
// broken its cohesion, or lies in a column that slides toward d as well. A straight face's
// slices slide together; a short chord across a round body's rim, which its slice weighs as a
// free-standing wall (up to twice Rankine's cohesion for a thin one), is held by the body.
//
// Sand of several materials (WedgeColumns::layered) takes two more rules: a plane's strength
// in a column is the mean over the cells it crosses there, weighted by its length in each (a
// steep plane from a strong layer would otherwise take a weak layer's strength), and down a
// face an exit fails only if it is no safer (hold over drive) than the sliding exits above
// it: a block that owes its drive to a less safe one above it (a weak layer slumping off a
// strong one) does not slide with it. One material keeps the rules above, with which its cuts
// and wet scenes were measured (docs/findings/culmann_wedges_yield.md, "Layers", says why).
//
// A frictionless box wall the case names a symmetry plane (frictionless_walls: a quarter of a
// round body in the corner) is a mirror: a plane that meets it goes on through the sand's
// mirror image, as it would through the whole body the case stands for. Other walls hold the
// planes that meet them, as above.
//
// Sand above an air gap in its column (an overhang, such as the bulge a sliding block pushes
// past a face below it) lies in no plane's block: it hangs by the cohesion of the vertical
// planes that join it to standing sand, and falls where its weight beats them or its cohesion
// is broken (overhangs.hpp).
//
// Cohesion is a peak strength: a plane that has slid has broken it, and holds by friction
// alone (the residual strength of a shear band, Skempton 1964). A cell of sand that is
// shearing (moving, and against the sand beside it; with several materials, moving and
// deforming, so that a turning body does not shear) lends its plane no cohesion, so a block
// that began to slide keeps sliding until friction alone stops it; a body pushed as a whole
// keeps its cohesion, sand at rest keeps it while sand beside it moves past, and sand that has
// come to rest holds again.
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "src/sand/strength_runs.hpp"

namespace dunesim {

// The box walls at x-, x+, y-, y+ that are symmetry planes: the sand beyond them is the mirror
// image of the sand inside.
using SymmetryWalls = std::array<bool, 4>;

// The domain's columns as the wedges see them, and the strength of the sand's cells.
struct WedgeColumns {
  int ni = 0, nj = 0;          // columns along x and y
  int k0 = 0, nk = 0;          // the layers of cells that hold sand
  double dx = 0;               // m
  double gravity = 0;          // m/s^2, along -z
  std::vector<float> top;      // per column, m: the bottom of its lowest open cell
  std::vector<float> density;  // per column, kg/m^3: the heaviest of its sand
  ColumnStrengths strengths;   // per cell of the layers, as runs down each column
  bool layered = false;        // sand of several materials: the rules for layers (above)
  SymmetryWalls symmetry{};    // walls beyond which the columns mirror these
  size_t at(int i, int j) const { return size_t(i) * size_t(nj) + size_t(j); }
  // Column (i, j), which may lie beyond the walls, folded back across the symmetry walls:
  // the column at(i, j) of its mirror image, or -1 beyond a wall that is no mirror.
  long folded(int i, int j) const {
    i = fold(i, ni, symmetry[0], symmetry[1]);
    j = fold(j, nj, symmetry[2], symmetry[3]);
    return i < 0 || j < 0 ? -1 : long(at(i, j));
  }
  // The strength of cell k of column `column`, k clamped to the layers.
  const StrengthRun& cell(size_t column, int k) const {
    return *strengths.at(column, std::clamp(k, k0, k0 + nk - 1));
  }

 private:
  // Index v of n along an axis, reflected across the mirror walls (at -1/2 and n - 1/2)
  // until it lies in [0, n); -1 if it leaves through a wall that is no mirror.
  static int fold(int v, int n, bool mirror_below, bool mirror_above) {
    while (v < 0 || v >= n) {
      if (v < 0 ? !mirror_below : !mirror_above) return -1;
      v = v < 0 ? -1 - v : 2 * n - 1 - v;
    }
    return v;
  }
};

// How the ranks share the planes' search. Every rank holds every column (WedgeColumns), and
// the faces' planes are independent of one another: this rank tests `part` of `parts` runs
// of faces, cut where the work is evenly shared (a face's planes cost about the square of its
// drop in cells), and `combine_min` takes the minimum of per-column heights over the ranks (a
// reduction the caller supplies; none alone).
// The result is the same on every rank, and the same to the bit for any number of parts.
struct WedgeSearchShare {
  int part = 0, parts = 1;
  std::function<void(float* heights, size_t count)> combine_min;
};

// Whether two sets of columns are the same to the bit: their search gives the same answer.
bool same_columns(const WedgeColumns& a, const WedgeColumns& b);

// The last search's columns and its answer. Sand at rest keeps its columns step after step
// (the same tops, densities and strengths), and the same columns give the same sliding
// heights, so a search of them is not run again. Every rank holds the same columns, so every
// rank decides alike and the search's reductions are skipped on all of them.
struct WedgeSearchMemo {
  bool valid = false;
  WedgeColumns columns;        // without its cells' lookup index (ColumnStrengths::drop_lookup)
  std::vector<float> sliding;  // lowest_sliding_planes(columns)
};

// Per column, the lowest height (m) of a sliding plane through it; infinity where none.
// Collective when `share` has a combine_min: every rank calls it the same number of times.
std::vector<float> lowest_sliding_planes(const WedgeColumns& columns,
                                         const WedgeSearchShare& share = {});

}  // namespace dunesim

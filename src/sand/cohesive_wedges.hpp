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
// Cohesion is a peak strength: a plane that has slid has broken it, and holds by friction
// alone (the residual strength of a shear band, Skempton 1964). A cell of sand that is
// shearing (moving against the sand beside it; with several materials, moving and deforming,
// so that a turning body does not shear) lends its plane no cohesion, so a block that began
// to slide keeps sliding until friction alone stops it; a body pushed as a whole keeps its
// cohesion, and sand that has come to rest holds again.
#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

namespace dunesim {

// The domain's columns as the wedges see them, and the strength of the sand's cells.
struct WedgeColumns {
  int ni = 0, nj = 0;           // columns along x and y
  int k0 = 0, nk = 0;           // the layers of cells that hold sand
  double dx = 0;                // m
  double gravity = 0;           // m/s^2, along -z
  std::vector<float> top;       // per column, m: the bottom of its lowest open cell
  std::vector<float> density;   // per column, kg/m^3: the heaviest of its sand
  std::vector<float> cohesion;  // per cell of the layers, Pa (0 where no sand or shearing)
  std::vector<float> tan_phi;   // per cell of the layers (the dry sand's where no sand)
  bool layered = false;         // sand of several materials: the rules for layers (above)
  size_t at(int i, int j) const { return size_t(i) * size_t(nj) + size_t(j); }
  // Cell k of column `column`, k clamped to the layers.
  size_t cell(size_t column, int k) const {
    return column * size_t(nk) + size_t(std::clamp(k - k0, 0, nk - 1));
  }
};

// Per column, the lowest height (m) of a sliding plane through it; infinity where none.
std::vector<float> lowest_sliding_planes(const WedgeColumns& columns);

}  // namespace dunesim

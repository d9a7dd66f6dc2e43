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
// column directions: each column knows its top (as in culmann_wedges.hpp), the weakest
// cohesion and friction of its sand, and its heaviest density. Planes leave every face (a
// column higher than its neighbour toward d) at each cell height of the drop; a plane is
// followed back, column by column, until it reaches the surface or a wall, summing the
// block's weight and the plane's strength. From each exit the angle between phi and 89
// degrees whose block slides most is searched for; if it slides, the shallowest angle that
// still slides lowers the sliding height of every column its plane crossed to its height
// there (steeper planes from the same exit lie above it). A cell whose centre lies above its
// column's sliding height is in a sliding block.
//
// Cohesion is a peak strength: a plane that has slid has broken it, and holds by friction
// alone (the residual strength of a shear band, Skempton 1964). A plane holds no cohesion
// where it passes through sand that is moving, so a block that began to slide keeps sliding
// until friction alone stops it, and the cohesion of sand that has come to rest holds again.
#pragma once
#include <cstddef>
#include <vector>

namespace dunesim {

// One column of the domain as the wedges see it.
struct WedgeColumns {
  int ni = 0, nj = 0;              // columns along x and y
  double dx = 0;                   // m
  double gravity = 0;              // m/s^2, along -z
  std::vector<float> top;          // m, bottom of the lowest open cell
  std::vector<float> cohesion;     // Pa, the weakest of the column's sand
  std::vector<float> tan_phi;      // the weakest of the column's sand
  std::vector<float> density;      // kg/m^3, the heaviest of the column's sand
  std::vector<float> moving_from;  // m, the bottom of the column's lowest moving sand cell
  size_t at(int i, int j) const { return size_t(i) * size_t(nj) + size_t(j); }
};

// Per column, the lowest height (m) of a sliding plane through it; infinity where none.
std::vector<float> lowest_sliding_planes(const WedgeColumns& columns);

}  // namespace dunesim

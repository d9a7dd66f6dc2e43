// Overhangs of cohesive sand: sand above an air gap in its column, which no Culmann plane
// weighs (a column's top is the bottom of its lowest open cell).
//
// An overhang hangs on the vertical planes that join it to sand standing on the floor beside
// it, and a vertical plane holds by cohesion alone (it carries no normal stress from the
// overhang's weight): a strip of the overhang along a line of columns, h high, falls when its
// weight beats the cohesion of the planes at its roots, rho g h L > c h for a cantilever L
// long (a strip that reaches support at both ends has two roots). The test runs on
// two-dimensional lines, as the wedges do: along each of the grid's four column lines
// through an overhanging column, the strip of its band of cells is followed both ways,
// through more overhang, to a root (a column whose sand stands up to the band) or a free end
// (air at the band's height, or a wall that is no mirror). Where some line reaches a root,
// the line whose root is nearest decides (the overhang's support lies across it): if its
// strip's weight beats its roots' cohesion, the band and the sand above it fall. An overhang that
// reaches no root on any line (a clump in flight) is left to the yield test. Sand in the band
// with its cohesion broken or none falls at once: the bulge a sliding block pushes past a face
// below it, which at rest stayed rigid and held the block (docs/findings/culmann_wedges_yield.md,
// "Hanging sand falls").
#pragma once
#include <vector>

#include "src/sand/cohesive_wedges.hpp"

namespace dunesim {

// Lowers `lowest` (per column, the lowest height of its sand that slides, m) to the bottom of
// each overhang that falls.
void lower_to_falling_overhangs(const WedgeColumns& columns, std::vector<float>& lowest);

}  // namespace dunesim

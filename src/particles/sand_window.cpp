#include "src/particles/sand_window.hpp"

#include <algorithm>
#include <climits>

#include "decomposition/reductions.hpp"
#include "src/grid/interpolation.hpp"

namespace dunesim {

namespace {

// Bounding box of the cells this rank's sand particles are in (Box{} if none).
Box local_sand_cells(const Particles& p, const std::vector<MaterialSpec>& materials, double dx) {
  std::vector<char> is_sand(materials.size());
  for (size_t m = 0; m < materials.size(); ++m)
    is_sand[m] = materials[m].kind == MaterialKind::Sand;
  Box found{{INT_MAX, INT_MAX, INT_MAX}, {INT_MIN, INT_MIN, INT_MIN}};
  const double inv_dx = 1.0 / dx;
  for (size_t n = 0; n < p.size(); ++n) {
    if (!is_sand[p.material[n]]) continue;
    const GridPoint pt(p.x[n], p.y[n], p.z[n], inv_dx);  // the cell P2G counts it in
    for (int a = 0; a < 3; ++a) {
      found.lo[a] = std::min(found.lo[a], pt.node[a]);
      found.hi[a] = std::max(found.hi[a], pt.node[a] + 1);
    }
  }
  return found.empty() ? Box{} : found;
}

}  // namespace

Box fit_sand_window(const Topology& topo, const Particles& particles,
                    const std::vector<MaterialSpec>& materials, double dx, const Box& current) {
  const Box sand = global_bounding_box(topo, local_sand_cells(particles, materials, dx));
  return refit_window(current, sand, kSandWindowReach, kSandWindowSlack,
                      topo.global(Stagger::Cell).grown(topo.ghost()));
}

}  // namespace dunesim

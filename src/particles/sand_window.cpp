#include "src/particles/sand_window.hpp"

#include "decomposition/reductions.hpp"
#include "src/particles/particle_window.hpp"

namespace dunesim {

Box fit_sand_window(const Topology& topo, const Particles& particles,
                    const std::vector<MaterialSpec>& materials, double dx, const Box& current) {
  std::vector<char> is_sand(materials.size());
  for (size_t m = 0; m < materials.size(); ++m)
    is_sand[m] = materials[m].kind == MaterialKind::Sand;
  const Box sand = global_bounding_box(topo, local_particle_cells(particles, dx, [&](size_t n) {
                                         return bool(is_sand[particles.material[n]]);
                                       }));
  return refit_window(current, sand, kSandWindowReach, kSandWindowSlack,
                      topo.global(Stagger::Cell).grown(topo.ghost()));
}

}  // namespace dunesim

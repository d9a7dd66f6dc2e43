#include "src/particles/particle_window.hpp"

#include "decomposition/reductions.hpp"

namespace dunesim {

Box fit_particle_window(const Topology& topo, const Particles& particles, double dx,
                        const Box& current) {
  const Box cells =
      global_bounding_box(topo, local_particle_cells(particles, dx, [](size_t) { return true; }));
  // Box::everywhere() (not fitted yet) holds any box, so it would be kept for good.
  const Box fitted = current == Box::everywhere() ? Box{} : current;
  return refit_window(fitted, cells, particle_window_reach(topo), kParticleWindowSlack,
                      topo.global(Stagger::Cell).grown(topo.ghost()));
}

}  // namespace dunesim

#include "src/particles/advection.hpp"

namespace dunesim {

void advect_particles(const MacGrid& g, double dt, const SolidPushOut& push_out, Particles& p) {
  const AdvectionSubsteps steps(dt, g.dx);
  for (size_t n = 0; n < p.size(); ++n) advect_particle(g, steps, push_out, n, nullptr, p);
}

}  // namespace dunesim

#include "src/pressure/free_surface.hpp"

#include <algorithm>
#include <cmath>

#include "src/particles/seeding.hpp"

namespace dunesim {

namespace {

// fill <- each owned cell's particles' share of a full cell, at most 1; 0 elsewhere.
void count_fill(const Particles& p, const Topology& topo, double dx, Array3<float>& fill) {
  fill.fill(0.0f);
  const float share = 1.0f / float(kParticlesPerCell);
  const Box& box = fill.box();
  for (size_t n = 0; n < p.size(); ++n) {
    const int i = int(std::floor(p.x[n] / dx)), j = int(std::floor(p.y[n] / dx)),
              k = int(std::floor(p.z[n] / dx));
    if (box.contains(i, j, k)) fill(i, j, k) += share;  // always, once particles migrated
  }
  for_each_index(topo.owned_cells(topo.rank()),
                 [&](int i, int j, int k) { fill(i, j, k) = std::min(fill(i, j, k), 1.0f); });
}

// to <- from after a [1 2 1] / 4 pass along axis a over the owned cells; a solid neighbour
// (or one outside the array) stands in with the cell's own value.
void smooth_along(int a, const Array3<float>& from, const MacGrid& g, const Topology& topo,
                  Array3<float>& to) {
  const Box& box = from.box();
  for_each_index(topo.owned_cells(topo.rank()), [&](int i, int j, int k) {
    const float centre = from(i, j, k);
    float sum = 2.0f * centre;
    for (int side : {-1, 1}) {
      Index3 nb{i, j, k};
      nb[a] += side;
      const bool open = box.contains(nb[0], nb[1], nb[2]) && !g.solid(nb[0], nb[1], nb[2]);
      sum += open ? from(nb[0], nb[1], nb[2]) : centre;
    }
    to(i, j, k) = 0.25f * sum;
  });
}

}  // namespace

void compute_surface_phi(const Particles& p, Halo& halo, const Topology& topo, MacGrid& g) {
  Array3<float>& fill = g.surface_phi;
  Array3<float>& scratch = g.surface_scratch;
  count_fill(p, topo, g.dx, fill);
  halo.fill<float>({&fill});
  // x into scratch, y back, z into scratch: phi = 1/2 - scratch.
  smooth_along(0, fill, g, topo, scratch);
  halo.fill<float>({&scratch});
  smooth_along(1, scratch, g, topo, fill);
  halo.fill<float>({&fill});
  smooth_along(2, fill, g, topo, scratch);
  for_each_index(topo.owned_cells(topo.rank()),
                 [&](int i, int j, int k) { g.surface_phi(i, j, k) = 0.5f - scratch(i, j, k); });
  halo.fill<float>({&g.surface_phi});
}

}  // namespace dunesim

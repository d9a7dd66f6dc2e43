#include "src/wet/percolation.hpp"

#include <algorithm>
#include <cmath>
#include <climits>
#include <limits>

#include "src/particles/pore_water.hpp"

namespace dunesim {

namespace {

// The per-cell sums of one rank's sand and the cell box the stage visits.
struct PoreCells {
  const Array3<double>& count;  // porous sand particles per cell, halo-filled
  Array3<double>& water;        // their water content, summed (the tally's)
  Array3<double>& change;       // scratch
  Box region;                   // owned cells around the sand
};

// Applies one pass of face fluxes: flux(lower, upper) is the water that moves from the
// lower to the upper cell of a face along `axis` (either sign). Every owned cell sums the
// fluxes of its faces, then all cells update at once.
template <class Flux>
void exchange_across_faces(Halo& halo, PoreCells& cells, int axis, Flux&& flux) {
  const Array3<double>& count = cells.count;
  Array3<double>& water = cells.water;
  halo.fill<double>({&water});
  cells.change.fill(cells.region, 0.0);
  for_each_index(cells.region, [&](int i, int j, int k) {
    if (count(i, j, k) == 0.0) return;
    const int64_t self = water.offset(i, j, k);
    double net = 0;
    for (int a = 0; a < 3; ++a) {
      if (axis >= 0 && a != axis) continue;
      for (int side : {-1, 1}) {
        const int64_t other = self + side * water.stride(a);
        if (count.data()[other] == 0.0) continue;
        // Both owners of the face evaluate it with the cells in the same order.
        net += side < 0 ? flux(other, self) : -flux(self, other);
      }
    }
    cells.change.data()[self] = net;
  });
  for_each_index(cells.region,
                 [&](int i, int j, int k) { water(i, j, k) += cells.change(i, j, k); });
}

}  // namespace

double percolation_substep_limit(const WetSandSpec& sand, double dx, double porosity) {
  if (porosity <= 0) porosity = sand.porosity;
  double limit = std::numeric_limits<double>::infinity();
  if (sand.propagation_rate > 0) limit = std::min(limit, dx * dx / (6 * sand.propagation_rate));
  if (sand.conductivity > 0)
    limit = std::min(limit, porosity * (1 - sand.ideal_saturation) * dx / sand.conductivity);
  return limit;
}

int percolate_pore_water(const Topology& topo, Halo& halo,
                         const std::vector<MaterialSpec>& materials, const MaterialSpec& sand,
                         const Vec3& gravity, double dt, MacGrid& g, Particles& p) {
  const WetSandSpec& wet = sand.wet;
  // The least porous sand drains its room fastest.
  const double limit = percolation_substep_limit(wet, g.dx, least_porosity(materials));
  if (!std::isfinite(limit) || dt <= 0) return 0;
  const PoreTally tally = pore_tally(g);
  tally_pore_water(p, materials, g.dx, tally);
  const Box owned = topo.owned_cells(topo.rank());
  PoreCells cells{tally.count, tally.water, g.pore_exchange,
                  nonzero_bounding_box(tally.count).intersect(owned)};
  halo.fill<double>({&tally.count});
  if (!tally.one_porosity()) halo.fill<double>({&tally.pores});
  const double* count = tally.count.data();
  const double* pores = tally.pores.data();
  const double* water = tally.water.data();

  // Counted in double: an int would overflow for extreme parameters, which `dunesim check`
  // refuses (src/driver/physics_budget.hpp) before any step.
  const int substeps = int(std::clamp(std::ceil(dt / limit), 1.0, double(INT_MAX)));
  const double ds = dt / substeps;
  const double n = wet.porosity, ideal = wet.ideal_saturation;
  const double diffusion = wet.propagation_rate * ds / (g.dx * g.dx);
  const double drainage = wet.conductivity * ds / g.dx;
  const auto [down, below] = gravity_axis(gravity);
  // Capillarity evens out the saturation (water / (n pores)) across a face, so that water
  // never crowds a less porous layer beyond its room.
  auto capillary_flux = [&](int64_t lo, int64_t hi) {
    return diffusion * (water[lo] / pores[lo] - water[hi] / pores[hi]) *
           std::min(pores[lo], pores[hi]);
  };
  // From the cell above (against gravity) into the one below it.
  auto drained = [&](int64_t from, int64_t to) {
    const double excess = water[from] - pores[from] * n * ideal;
    if (excess <= 0) return 0.0;
    const double wetter = excess / (pores[from] * n * (1 - ideal));  // f(S)
    const double room = pores[to] * n - water[to];
    return std::max(0.0, std::min({drainage * wetter * std::min(count[from], count[to]), excess,
                                   room}));
  };
  auto gravity_flux = [&](int64_t lo, int64_t hi) {
    return below < 0 ? -drained(hi, lo) : drained(lo, hi);
  };
  for (int s = 0; s < substeps; ++s) {
    if (diffusion > 0) exchange_across_faces(halo, cells, -1, capillary_flux);
    if (drainage > 0) exchange_across_faces(halo, cells, down, gravity_flux);
  }

  const double inv_dx = 1.0 / g.dx;
  const std::vector<double> shares = pore_shares(materials);
  for (size_t q = 0; q < p.size(); ++q) {
    const double share = shares[p.material[q]];
    if (share == 0.0) continue;
    const auto [i, j, k] = particle_cell(p, q, inv_dx);
    const int64_t c = tally.water.offset(i, j, k);
    p.water_content[q] = particle_water(water[c], pores[c], share);
  }
  return substeps;
}

}  // namespace dunesim

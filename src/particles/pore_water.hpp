// Water held in the pores of sand, counted per grid cell: the shared first step of the
// absorption and percolation stages.
#pragma once
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "decomposition/particles.hpp"
#include "io/case_config.hpp"
#include "src/grid/mac_grid.hpp"

namespace dunesim {

// The axis gravity mostly points along, and -1 or +1 for its direction on that axis: where
// "below" is for absorption and drainage.
inline std::pair<int, int> gravity_axis(const Vec3& gravity) {
  int down = 2;
  for (int a = 0; a < 3; ++a)
    if (std::abs(gravity[a]) > std::abs(gravity[down])) down = a;
  return {down, gravity[down] > 0 ? 1 : -1};
}

// The cell particle n lies in.
inline Index3 particle_cell(const Particles& p, size_t n, double inv_dx) {
  return {int(std::floor(p.x[n] * inv_dx)), int(std::floor(p.y[n] * inv_dx)),
          int(std::floor(p.z[n] * inv_dx))};
}

// The pores of a particle of each material in units of a particle of the first sand
// material's, n_m / n, where n is the porosity the pore-water stages take from that first
// sand (`sand` in their arguments): 1 for that sand, 0 for water and for sand that holds no
// water. Several sand materials either all hold water or none does (io/case_config.cpp).
inline std::vector<double> pore_shares(const std::vector<MaterialSpec>& materials) {
  double first = 0;
  for (const MaterialSpec& m : materials)
    if (m.kind == MaterialKind::Sand && first == 0) first = m.wet.porosity;
  std::vector<double> shares(materials.size(), 0.0);
  for (size_t m = 0; m < materials.size(); ++m)
    if (materials[m].kind == MaterialKind::Sand && materials[m].wet.holds_water())
      shares[m] = materials[m].wet.porosity == first ? 1.0 : materials[m].wet.porosity / first;
  return shares;
}

// Whether the sand materials that hold water differ in porosity (the grid then keeps a
// pore_volume array).
inline bool has_several_porosities(const std::vector<MaterialSpec>& materials) {
  const std::vector<double> shares = pore_shares(materials);
  return std::any_of(shares.begin(), shares.end(), [](double s) { return s != 0 && s != 1; });
}

// The smallest porosity among the sand materials that hold water (0 if none does).
inline double least_porosity(const std::vector<MaterialSpec>& materials) {
  double least = 0;
  for (const MaterialSpec& m : materials)
    if (m.kind == MaterialKind::Sand && m.wet.holds_water())
      least = least == 0 ? m.wet.porosity : std::min(least, m.wet.porosity);
  return least;
}

// The per-cell sums over a rank's porous sand particles that the pore-water stages share.
// The water a cell's pores hold when full is n * pores (n the first sand's porosity) and
// its saturation water / (n * pores); its particles' count sets how much sand a face
// between two cells crosses. With one porosity, pores and count are one array.
struct PoreTally {
  Array3<double>& count;  // porous sand particles
  Array3<double>& pores;  // their pores, in the first sand's particles (pore_shares)
  Array3<double>& water;  // the water content they hold
  bool one_porosity() const { return &pores == &count; }
};

// The tally over the grid's pore arrays: pores in grid.pore_volume where the case mixes
// porosities, in grid.pore_count otherwise.
inline PoreTally pore_tally(MacGrid& g) {
  return {g.pore_count, g.pore_volume.size() > 0 ? g.pore_volume : g.pore_count, g.pore_water};
}

// Over this rank's particles (each in an owned cell): the tally's sums. They are zeroed
// first over their whole box; ghost cells stay 0.
inline void tally_pore_water(const Particles& p, const std::vector<MaterialSpec>& materials,
                             double dx, const PoreTally& tally) {
  const std::vector<double> shares = pore_shares(materials);
  tally.count.fill(0.0);
  tally.pores.fill(0.0);
  tally.water.fill(0.0);
  const double inv_dx = 1.0 / dx;
  for (size_t n = 0; n < p.size(); ++n) {
    const double share = shares[p.material[n]];
    if (share == 0.0) continue;
    const auto [i, j, k] = particle_cell(p, n, inv_dx);
    const int64_t c = tally.count.offset(i, j, k);
    tally.count.data()[c] += 1.0;
    if (!tally.one_porosity()) tally.pores.data()[c] += share;
    tally.water.data()[c] += p.water_content[n];
  }
}

// A porous sand particle's water content when its cell holds `water` in `pores` (the
// tally's): the cell's saturation in the particle's own pores.
inline double particle_water(double water, double pores, double share) {
  return water / pores * share;
}

}  // namespace dunesim

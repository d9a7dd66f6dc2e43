#include "src/particles/sand_window.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <limits>

#include "decomposition/reductions.hpp"

namespace dunesim {

namespace {

// The least and greatest of v[0..n) where `counts` (all where it is null), infinite where
// none counts. Four lanes of minima and maxima at a time: a single chain of comparisons
// would wait on each one's latency.
std::pair<double, double> extremes(const double* v, size_t n, const char* counts) {
  typedef double Lanes __attribute__((vector_size(32)));
  constexpr double kInf = std::numeric_limits<double>::infinity();
  Lanes low = {kInf, kInf, kInf, kInf}, high = -low;
  typedef long long Take __attribute__((vector_size(32)));
  size_t m = 0;
  for (; m + 4 <= n; m += 4) {
    Lanes x;
    std::memcpy(&x, v + m, sizeof x);
    Lanes for_low = x, for_high = x;
    if (counts) {
      const Take take = {counts[m], counts[m + 1], counts[m + 2], counts[m + 3]};
      for_low = take != 0 ? x : Lanes{kInf, kInf, kInf, kInf};
      for_high = take != 0 ? x : -Lanes{kInf, kInf, kInf, kInf};
    }
    low = for_low < low ? for_low : low;
    high = for_high > high ? for_high : high;
  }
  double least = std::min({low[0], low[1], low[2], low[3]});
  double greatest = std::max({high[0], high[1], high[2], high[3]});
  for (; m < n; ++m)
    if (!counts || counts[m]) {
      least = std::min(least, v[m]);
      greatest = std::max(greatest, v[m]);
    }
  return {least, greatest};
}

// Bounding box of the cells this rank's sand particles are in (Box{} if none): the cell P2G
// counts a particle in is floor(x / dx) along each axis, and both the product and floor are
// monotone, so the box follows from the extreme coordinates alone.
Box local_sand_cells(const Particles& p, const std::vector<MaterialSpec>& materials, double dx) {
  std::vector<char> is_sand(materials.size());
  for (size_t m = 0; m < materials.size(); ++m)
    is_sand[m] = materials[m].kind == MaterialKind::Sand;
  std::vector<char> counts;  // per particle, where not every material is sand
  if (!std::all_of(is_sand.begin(), is_sand.end(), [](char sand) { return sand; })) {
    counts.resize(p.size());
    for (size_t n = 0; n < p.size(); ++n) counts[n] = is_sand[p.material[n]];
  }
  const double* coordinate[3] = {p.x.data(), p.y.data(), p.z.data()};
  const double inv_dx = 1.0 / dx;
  Box found;
  for (int a = 0; a < 3; ++a) {
    const auto [low, high] =
        extremes(coordinate[a], p.size(), counts.empty() ? nullptr : counts.data());
    if (!(low <= high)) return Box{};  // no sand particle
    found.lo[a] = int(std::floor(low * inv_dx));
    found.hi[a] = int(std::floor(high * inv_dx)) + 1;
  }
  return found;
}

}  // namespace

Box fit_sand_window(const Topology& topo, const Particles& particles,
                    const std::vector<MaterialSpec>& materials, double dx, const Box& current) {
  const Box sand = global_bounding_box(topo, local_sand_cells(particles, materials, dx));
  return refit_window(current, sand, kSandWindowReach, kSandWindowSlack,
                      topo.global(Stagger::Cell).grown(topo.ghost()));
}

}  // namespace dunesim

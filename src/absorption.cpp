#include "src/absorption.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "src/pore_water.hpp"

namespace dunesim {

namespace {

// The cells a water particle in cell c may soak into, in the order it tries them: its own,
// the one below it along gravity, then the other five faces' neighbours.
std::array<Index3, 7> absorption_candidates(const Index3& c, const Vec3& gravity) {
  const auto [down, below] = gravity_axis(gravity);
  std::array<Index3, 7> cells;
  cells.fill(c);
  cells[1][down] += below;
  int next = 2;
  for (int a = 0; a < 3; ++a)
    for (int side : {-1, 1})
      if (!(a == down && side == below)) cells[next++][a] += side;
  return cells;
}

}  // namespace

AbsorptionStats absorb_free_water(const Topology& topo, Halo& halo,
                                  const std::vector<MaterialSpec>& materials,
                                  const MaterialSpec& sand, const Vec3& gravity, MacGrid& g,
                                  Particles& p) {
  Array3<double>& count = g.pore_count;
  Array3<double>& water = g.pore_water;
  Array3<double>& asked = g.pore_exchange;
  Array3<double>& share = g.pore_uptake;  // fraction of each request granted
  const double n_pores = sand.wet.porosity;
  tally_pore_water(p, materials, g.dx, count, water);
  halo.fill<double>({&count, &water});
  auto room = [&](const Index3& c) {
    return count(c[0], c[1], c[2]) * n_pores - water(c[0], c[1], c[2]);
  };

  // Requests: each water particle asks one cell for all its water.
  const Box local = topo.local(Stagger::Cell);
  std::vector<int64_t> target(p.size(), -1);
  asked.fill(0.0);
  const double inv_dx = 1.0 / g.dx;
  for (size_t n = 0; n < p.size(); ++n) {
    if (materials[p.material[n]].kind != MaterialKind::Water) continue;
    const Index3 cell{int(std::floor(p.x[n] * inv_dx)), int(std::floor(p.y[n] * inv_dx)),
                      int(std::floor(p.z[n] * inv_dx))};
    for (const Index3& c : absorption_candidates(cell, gravity)) {
      if (!local.contains(c[0], c[1], c[2]) || room(c) <= 0.0) continue;
      target[n] = asked.offset(c[0], c[1], c[2]);
      asked.data()[target[n]] += p.water_content[n];
      break;
    }
  }
  halo.sum<double>({&asked});

  // Answers, decided by each cell's owner: the granted fraction of every request.
  AbsorptionStats stats;
  share.fill(0.0);
  for_each_index(topo.owned_cells(topo.rank()), [&](int i, int j, int k) {
    const double wanted = asked(i, j, k);
    if (wanted <= 0.0) return;
    const double space = room({i, j, k});
    share(i, j, k) = wanted <= space ? 1.0 : space / wanted;
    stats.absorbed += std::min(wanted, space);
  });
  halo.fill<double>({&share});

  // Sand takes the granted water, in proportion to each particle's empty pores.
  bool emptied = false;  // some water particle gave all its water
  for (size_t n = 0; n < p.size(); ++n) {
    if (target[n] >= 0) {
      p.water_content[n] -= p.water_content[n] * share.data()[target[n]];
      emptied = emptied || p.water_content[n] <= 0.0;
      continue;
    }
    const MaterialSpec& m = materials[p.material[n]];
    if (m.kind != MaterialKind::Sand || !m.wet.holds_water()) continue;
    const int64_t c = asked.offset(int(std::floor(p.x[n] * inv_dx)),
                                   int(std::floor(p.y[n] * inv_dx)),
                                   int(std::floor(p.z[n] * inv_dx)));
    const double wanted = asked.data()[c];
    if (wanted <= 0.0) continue;
    const double space = count.data()[c] * n_pores - water.data()[c];
    const double filled = wanted >= space ? 1.0 : wanted / space;
    p.water_content[n] += (n_pores - p.water_content[n]) * filled;
  }
  if (!emptied) return stats;
  const size_t before = p.size();
  p.keep_only([&](size_t n) {
    return materials[p.material[n]].kind != MaterialKind::Water || p.water_content[n] > 0.0;
  });
  stats.particles_removed = int64_t(before - p.size());
  return stats;
}

}  // namespace dunesim

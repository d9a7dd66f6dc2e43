#include "src/wet/absorption.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "src/particles/pore_water.hpp"

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

// Which cell the water particles of a cell soak into: the first candidate with room, as an
// offset into the grid arrays, or -1. The answer depends only on the cell, and the
// particles come sorted by cell, so it is looked up once per run of particles in a cell.
class SoakTarget {
 public:
  SoakTarget(const Box& local, const Array3<double>& pores, const Array3<double>& water,
             double porosity, const Vec3& gravity)
      : local_(local), pores_(pores), water_(water), porosity_(porosity), gravity_(gravity) {}

  int64_t operator()(const Index3& cell) {
    if (cell == last_cell_) return last_target_;
    last_cell_ = cell;
    last_target_ = -1;
    for (const Index3& c : absorption_candidates(cell, gravity_)) {
      if (!local_.contains(c[0], c[1], c[2])) continue;
      const int64_t at = pores_.offset(c[0], c[1], c[2]);
      if (pores_.data()[at] * porosity_ - water_.data()[at] > 0.0) {
        last_target_ = at;
        break;
      }
    }
    return last_target_;
  }

 private:
  Box local_;
  const Array3<double>& pores_;  // the tally's (pore_water.hpp)
  const Array3<double>& water_;
  double porosity_;  // the first sand's
  Vec3 gravity_;
  Index3 last_cell_{-1, -1, -1};  // no particle lies in a cell with a negative index
  int64_t last_target_ = -1;
};

}  // namespace

AbsorptionStats absorb_free_water(const Topology& topo, Halo& halo,
                                  const std::vector<MaterialSpec>& materials,
                                  const MaterialSpec& sand, const Vec3& gravity, MacGrid& g,
                                  Particles& p) {
  const PoreTally tally = pore_tally(g);
  const Array3<double>& pores = tally.pores;
  Array3<double>& water = tally.water;
  Array3<double>& asked = g.pore_exchange;
  Array3<double>& share = g.pore_uptake;  // fraction of each request granted
  const double n_pores = sand.wet.porosity;
  tally_pore_water(p, materials, g.dx, tally);
  halo.fill<double>({&tally.pores, &water});
  const double inv_dx = 1.0 / g.dx;
  auto is_water = [&](size_t n) { return materials[p.material[n]].kind == MaterialKind::Water; };

  // Requests: each water particle asks one cell for all its water.
  SoakTarget target(topo.local(Stagger::Cell), pores, water, n_pores, gravity);
  asked.fill(0.0);
  for (size_t n = 0; n < p.size(); ++n) {
    if (!is_water(n)) continue;
    const int64_t c = target(particle_cell(p, n, inv_dx));
    if (c >= 0) asked.data()[c] += p.water_content[n];
  }
  halo.sum<double>({&asked});

  // Answers, decided by each cell's owner: the granted fraction of every request.
  AbsorptionStats stats;
  share.fill(0.0);
  for_each_index(topo.owned_cells(topo.rank()), [&](int i, int j, int k) {
    const double wanted = asked(i, j, k);
    if (wanted <= 0.0) return;
    const double space = pores(i, j, k) * n_pores - water(i, j, k);
    share(i, j, k) = wanted <= space ? 1.0 : space / wanted;
    stats.absorbed += std::min(wanted, space);
  });
  halo.fill<double>({&share});

  // Water particles give the granted fraction; sand takes it, in proportion to each
  // particle's empty pores. The targets are found again from the same sums.
  bool emptied = false;  // some water particle gave all its water
  for (size_t n = 0; n < p.size(); ++n) {
    const Index3 cell = particle_cell(p, n, inv_dx);
    if (is_water(n)) {
      const int64_t c = target(cell);
      if (c < 0) continue;
      p.water_content[n] -= p.water_content[n] * share.data()[c];
      emptied = emptied || p.water_content[n] <= 0.0;
      continue;
    }
    const WetSandSpec& wet = materials[p.material[n]].wet;
    if (!wet.holds_water()) continue;
    const int64_t c = asked.offset(cell[0], cell[1], cell[2]);
    const double wanted = asked.data()[c];
    if (wanted <= 0.0) continue;
    const double space = pores.data()[c] * n_pores - water.data()[c];
    const double filled = wanted >= space ? 1.0 : wanted / space;
    p.water_content[n] += (wet.porosity - p.water_content[n]) * filled;
  }
  if (!emptied) return stats;
  const size_t before = p.size();
  p.keep_only([&](size_t n) { return !is_water(n) || p.water_content[n] > 0.0; });
  stats.particles_removed = int64_t(before - p.size());
  return stats;
}

}  // namespace dunesim

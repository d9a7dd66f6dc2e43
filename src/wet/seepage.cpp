#include "src/wet/seepage.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "src/grid/interpolation.hpp"
#include "src/particles/pore_water.hpp"
#include "src/particles/seeding.hpp"

namespace dunesim {

namespace {

// Saturated to round-off: drainage fills a cell exactly up to its pores.
constexpr double kSaturated = 1 - 1e-9;

struct Face {
  int axis, side;  // the open cell is the sand cell + side along axis
  int slot() const { return 2 * axis + (side > 0); }  // < 6, for the particle's id
};

// The faces a saturated cell may seep through: the one below it along gravity and the
// four beside it.
std::array<Face, 5> seeping_faces(const Vec3& gravity) {
  const auto [down, below] = gravity_axis(gravity);
  std::array<Face, 5> faces;
  faces[0] = {down, below};
  int next = 1;
  for (int a = 0; a < 3; ++a)
    if (a != down)
      for (int side : {-1, 1}) faces[next++] = {a, side};
  return faces;
}

// Inside the domain, not solid, and without porous sand.
bool is_open(const Index3& cells, const MacGrid& g, const Index3& c) {
  for (int a = 0; a < 3; ++a)
    if (c[a] < 0 || c[a] >= cells[a]) return false;
  return !g.solid(c[0], c[1], c[2]) && g.pore_count(c[0], c[1], c[2]) == 0.0;
}

// The half of the open cell next to the face a seeped particle came through; the other
// halves alternate with the step.
int sub_cell_beside(const Face& face, int64_t step) {
  int sub = 0;
  for (int a = 0, bit = 0; a < 3; ++a) {
    const int upper = a == face.axis ? int(face.side < 0) : int((step >> bit++) & 1);
    sub |= upper << a;
  }
  return sub;
}

}  // namespace

int first_water_material(const std::vector<MaterialSpec>& materials) {
  for (size_t m = 0; m < materials.size(); ++m)
    if (materials[m].kind == MaterialKind::Water) return int(m);
  return -1;
}

void add_free_water_particle(const CaseConfig& config, const MacGrid& g, int material,
                             const Index3& cell, int sub, int64_t id, double water,
                             Particles& p) {
  const Vec3 pos = jittered_seed_position(config, cell[0], cell[1], cell[2], sub, id);
  SourceSpec seep;
  seep.material = material;
  for (int a = 0; a < 3; ++a)
    seep.velocity[a] =
        interpolate(g.vel[a], make_stencil(g.vel[a], a, g.dx, pos[0], pos[1], pos[2]));
  add_source_particle(seep, config.materials, pos, id, p);
  p.water_content.back() = water;
}

double seepage_period(const WetSandSpec& sand, double dx) {
  if (sand.conductivity <= 0) return std::numeric_limits<double>::infinity();
  return dx / (kParticlesPerCell * sand.conductivity);
}

SeepageStats release_seepage(const Topology& topo, Halo& halo, const CaseConfig& config,
                             const MaterialSpec& sand, int64_t step, double step_start_time,
                             double dt, MacGrid& g, Particles& p) {
  SeepageStats stats;
  const double period = seepage_period(sand.wet, g.dx);
  const int water_material = first_water_material(config.materials);
  if (!std::isfinite(period) || water_material < 0) return stats;
  // A function of time only, so every rank agrees on whether this step releases.
  const double releases =
      std::floor((step_start_time + dt) / period) - std::floor(step_start_time / period);
  if (releases <= 0) return stats;

  const PoreTally tally = pore_tally(g);
  const Array3<double>& count = tally.count;
  const Array3<double>& pores = tally.pores;
  const Array3<double>& water = tally.water;
  Array3<double>& lost = g.pore_exchange;
  tally_pore_water(p, config.materials, g.dx, tally);
  halo.fill<double>({&tally.count, &tally.water});
  if (!tally.one_porosity()) halo.fill<double>({&tally.pores});
  lost.fill(0.0);
  const double n = sand.wet.porosity, ideal = sand.wet.ideal_saturation;
  const Box owned = topo.owned_cells(topo.rank());
  const Box region =
      nonzero_bounding_box(count).intersect(neighbourhood(owned, 1, topo.local(Stagger::Cell)));
  const std::array<Face, 5> faces = seeping_faces(config.gravity);
  for_each_index(region, [&](int i, int j, int k) {
    const double c = count(i, j, k), v = pores(i, j, k), w = water(i, j, k);
    if (c == 0.0 || w < kSaturated * v * n) return;
    std::array<bool, 5> open_face;
    int open_faces = 0;
    for (size_t f = 0; f < faces.size(); ++f) {
      Index3 next{i, j, k};
      next[faces[f].axis] += faces[f].side;
      open_face[f] = is_open(config.cells, g, next);
      open_faces += open_face[f];
    }
    if (open_faces == 0) return;
    // One particle volume per period through a full face (c / 8 of it for c particles), at
    // most a whole particle, and together no more than the water above S'.
    const double release =
        std::min({releases * c / kParticlesPerCell, 1.0, (w - v * n * ideal) / open_faces});
    const bool owns_sand = owned.contains(i, j, k);
    const int64_t sand_cell = global_cell_index(config.cells, i, j, k);
    for (size_t f = 0; f < faces.size(); ++f) {
      if (!open_face[f]) continue;
      Index3 open{i, j, k};
      open[faces[f].axis] += faces[f].side;
      if (owns_sand) {
        lost(i, j, k) += release;
        stats.released += release;
      }
      if (owned.contains(open[0], open[1], open[2])) {
        const int64_t id = created_particle_id(ParticleOrigin::Seepage, config.cells, step,
                                               sand_cell, faces[f].slot());
        add_free_water_particle(config, g, water_material, open, sub_cell_beside(faces[f], step),
                                id, release, p);
        ++stats.particles_created;
      }
    }
  });

  // The sand of a seeping cell shares the loss by its pores (its particles hold the cell's
  // saturation).
  const double inv_dx = 1.0 / g.dx;
  const std::vector<double> shares = pore_shares(config.materials);
  for (size_t q = 0; q < p.size(); ++q) {
    const double share = shares[p.material[q]];
    if (share == 0.0) continue;
    const auto [i, j, k] = particle_cell(p, q, inv_dx);
    const double loss = lost(i, j, k);
    if (loss != 0.0) p.water_content[q] -= particle_water(loss, pores(i, j, k), share);
  }
  return stats;
}

}  // namespace dunesim

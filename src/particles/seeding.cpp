#include "src/particles/seeding.hpp"

#include <array>
#include <cmath>
#include <vector>

namespace dunesim {

namespace {

// SplitMix64: a counter-based generator, so each particle's jitter is a pure function of
// its global index (no sequential state that would depend on the rank layout).
uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

double unit_random(uint64_t seed, uint64_t counter) {
  return double(splitmix64(seed * 0x2545F4914F6CDD1Dull + counter) >> 11) * 0x1.0p-53;
}

}  // namespace

int64_t global_cell_index(const Index3& cells, int i, int j, int k) {
  return i + int64_t(cells[0]) * (j + int64_t(cells[1]) * k);
}

int64_t created_particle_id(ParticleOrigin origin, const Index3& cells, int64_t step,
                            int64_t cell, int slot) {
  const int64_t all_cells = int64_t(cells[0]) * cells[1] * cells[2];
  const int64_t n = kParticlesPerCell * (all_cells * step + cell) + slot;
  switch (origin) {
    case ParticleOrigin::Pour: return n;
    case ParticleOrigin::Rain: return -(1 + 2 * n);
    case ParticleOrigin::Seepage: return -(2 + 2 * n);
  }
  return n;
}

double chance_for_id(const CaseConfig& config, int64_t id) {
  // The jitter uses counters 3 id .. 3 id + 2 of the same seed; a second seed keeps apart.
  return unit_random(config.seed ^ 0x5DEECE66Dull, uint64_t(id));
}

Vec3 jittered_seed_position(const CaseConfig& config, int i, int j, int k, int sub, int64_t id) {
  const int corner[3] = {i, j, k};
  Vec3 pos;
  for (int a = 0; a < 3; ++a) {
    double r = unit_random(config.seed, uint64_t(id) * 3 + a) - 0.5;  // [-0.5, 0.5)
    double subcell_centre = 0.25 + 0.5 * ((sub >> a) & 1);
    pos[a] = (corner[a] + subcell_centre + 0.5 * config.jitter * r) * config.cell_size;
  }
  return pos;
}

namespace {

// The sources that fill shapes at the start, each with the box of cells its seeds may lie
// in: a cell whose seeds all fall outside a shape's bounding box skips its inside tests
// (on a mesh, an interpolation each), which most cells of a domain would pay for nothing.
struct SeedingSource {
  int index;
  std::array<Vec3, 2> box;
};

std::vector<SeedingSource> seeding_sources(const CaseConfig& config) {
  std::vector<SeedingSource> sources;
  for (size_t s = 0; s < config.sources.size(); ++s)
    if (!config.sources[s].is_rain())
      sources.push_back({int(s), config.sources[s].shape.bounding_box()});
  return sources;
}

// Whether any seed of cell (i, j, k) may lie in `box`: seeds sit at the cell's subcell
// centres, 1/4 and 3/4 of a cell in, moved by up to jitter / 4 of a cell.
bool seeds_may_reach(const CaseConfig& config, int i, int j, int k,
                     const std::array<Vec3, 2>& box) {
  const int corner[3] = {i, j, k};
  const double reach = 0.25 * std::abs(config.jitter) + 1e-6;
  for (int a = 0; a < 3; ++a) {
    const double lo = (corner[a] + 0.25 - reach) * config.cell_size;
    const double hi = (corner[a] + 0.75 + reach) * config.cell_size;
    if (hi < box[0][a] || lo > box[1][a]) return false;
  }
  return true;
}

}  // namespace

void for_each_seed(const CaseConfig& config, const Topology& topo, const Array3<uint8_t>& solid,
                   const std::function<void(const Vec3&, int, int64_t)>& visit) {
  const std::vector<SeedingSource> sources = seeding_sources(config);
  std::vector<const SeedingSource*> near;
  for_each_index(topo.owned_cells(topo.rank()), [&](int i, int j, int k) {
    if (solid(i, j, k)) return;
    near.clear();
    for (const SeedingSource& s : sources)
      if (seeds_may_reach(config, i, j, k, s.box)) near.push_back(&s);
    if (near.empty()) return;
    const int64_t cell = global_cell_index(config.cells, i, j, k);
    for (int sub = 0; sub < kParticlesPerCell; ++sub) {
      const int64_t id = cell * kParticlesPerCell + sub;
      const Vec3 pos = jittered_seed_position(config, i, j, k, sub, id);
      int source = -1;  // the last source that holds the seed
      for (const SeedingSource* s : near)
        if (config.sources[s->index].shape.contains(pos)) source = s->index;
      if (source >= 0) visit(pos, source, id);
    }
  });
}

bool needs_particle_affine(const CaseConfig& config) {
  for (const MaterialSpec& m : config.materials)
    if (m.transfer != Transfer::Flip) return true;
  return false;
}

bool needs_particle_water(const CaseConfig& config) {
  for (const MaterialSpec& m : config.materials)
    if (m.kind == MaterialKind::Sand && m.wet.holds_water()) return true;
  return false;
}

std::vector<double> water_without_pores(const std::vector<MaterialSpec>& materials) {
  std::vector<double> water;
  for (const MaterialSpec& m : materials) water.push_back(m.kind == MaterialKind::Water ? 1 : 0);
  return water;
}

void carry_water_as_needed(const CaseConfig& config, Particles& particles) {
  particles.carry_water(needs_particle_water(config), water_without_pores(config.materials));
}

double water_content_of_new_particle(const SourceSpec& source,
                                     const std::vector<MaterialSpec>& materials) {
  const MaterialSpec& m = materials[source.material];
  return m.kind == MaterialKind::Water ? 1.0 : m.wet.porosity * source.saturation;
}

void add_source_particle(const SourceSpec& source, const std::vector<MaterialSpec>& materials,
                         const Vec3& position, int64_t id, Particles& p) {
  p.x.push_back(position[0]);
  p.y.push_back(position[1]);
  p.z.push_back(position[2]);
  p.vx.push_back(source.velocity[0]);
  p.vy.push_back(source.velocity[1]);
  p.vz.push_back(source.velocity[2]);
  p.id.push_back(id);
  p.material.push_back(uint8_t(source.material));
  if (p.carries_water)
    p.water_content.push_back(water_content_of_new_particle(source, materials));
  if (p.carries_stress)
    for (ParticleVector<float>& component : p.stress) component.push_back(0.0f);  // unloaded
  if (p.carries_affine) p.affine.push_back(AffineVelocity{});                     // uniform
}

Particles seed_particles(const CaseConfig& config, const Topology& topo,
                         const Array3<uint8_t>& solid, bool carry_stress) {
  // Count first so the arrays are allocated once.
  size_t count = 0;
  for_each_seed(config, topo, solid, [&](const Vec3&, int, int64_t) { ++count; });
  Particles p;
  p.carry_stress(carry_stress);
  p.carry_affine(needs_particle_affine(config));
  carry_water_as_needed(config, p);
  p.reserve(count + count / 8);  // room to grow without copying: see Particles::resize
  for_each_seed(config, topo, solid, [&](const Vec3& pos, int source, int64_t id) {
    add_source_particle(config.sources[source], config.materials, pos, id, p);
  });
  return p;
}

}  // namespace dunesim

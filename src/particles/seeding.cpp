#include "src/particles/seeding.hpp"

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

void for_each_seed(const CaseConfig& config, const Topology& topo, const Array3<uint8_t>& solid,
                   const std::function<void(const Vec3&, int, int64_t)>& visit) {
  for_each_index(topo.owned_cells(topo.rank()), [&](int i, int j, int k) {
    if (solid(i, j, k)) return;
    const int64_t cell = global_cell_index(config.cells, i, j, k);
    for (int sub = 0; sub < kParticlesPerCell; ++sub) {
      const int64_t id = cell * kParticlesPerCell + sub;
      const Vec3 pos = jittered_seed_position(config, i, j, k, sub, id);
      int source = -1;
      for (size_t s = 0; s < config.sources.size(); ++s)
        if (!config.sources[s].is_rain() && config.sources[s].shape.contains(pos))
          source = int(s);
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

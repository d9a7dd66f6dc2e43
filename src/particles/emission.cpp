#include "src/particles/emission.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "src/particles/pore_water.hpp"
#include "src/particles/seeding.hpp"

namespace dunesim {

namespace {

// The cells that hold every point of `shape`, clipped to the domain.
Box cells_around(const ShapeSpec& shape, const CaseConfig& config) {
  const auto [lo, hi] = shape.bounding_box();
  Box cells;
  for (int a = 0; a < 3; ++a) {
    const double n = config.cells[a];
    cells.lo[a] = int(std::clamp(std::floor(lo[a] / config.cell_size), 0.0, n));
    cells.hi[a] = int(std::clamp(std::floor(hi[a] / config.cell_size) + 1, 0.0, n));
  }
  return cells;
}

}  // namespace

ParticleEmitter::ParticleEmitter(const CaseConfig& config, const Topology& topo) {
  Box reach;
  for (const SourceSpec& source : config.sources)
    if (source.emit_until > 0 && !source.is_rain())
      reach = hull(reach, cells_around(source.shape, config));
  owned_ = topo.owned_cells(topo.rank());
  reach_ = reach.intersect(owned_);
  if (reach_.empty()) reach_ = Box{};
  occupied_.reset(reach_, Stagger::Cell, 0);
}

int64_t ParticleEmitter::emit(const CaseConfig& config, const Array3<uint8_t>& solid,
                              int64_t step, double step_start_time, double step_duration,
                              Particles& particles) {
  const size_t before = particles.size();
  refill_pouring_sources(config, solid, step, step_start_time, particles);
  let_rain_fall(config, solid, step, step_start_time, step_duration, particles);
  return int64_t(particles.size() - before);
}

void ParticleEmitter::refill_pouring_sources(const CaseConfig& config,
                                             const Array3<uint8_t>& solid, int64_t step,
                                             double step_start_time, Particles& particles) {
  if (reach_.empty()) return;
  std::vector<int> pouring;
  for (size_t s = 0; s < config.sources.size(); ++s)
    if (!config.sources[s].is_rain() && step_start_time < config.sources[s].emit_until)
      pouring.push_back(int(s));
  if (pouring.empty()) return;

  const double dx = config.cell_size;
  occupied_.fill(0);
  for (size_t n = 0; n < particles.size(); ++n) {
    const int i = int(std::floor(particles.x[n] / dx)), j = int(std::floor(particles.y[n] / dx)),
              k = int(std::floor(particles.z[n] / dx));
    if (reach_.contains(i, j, k)) occupied_(i, j, k) = 1;
  }
  for_each_index(reach_, [&](int i, int j, int k) {
    if (occupied_(i, j, k) || solid(i, j, k)) return;
    const int64_t cell = global_cell_index(config.cells, i, j, k);
    for (int sub = 0; sub < kParticlesPerCell; ++sub) {
      const int64_t id = created_particle_id(ParticleOrigin::Pour, config.cells, step, cell, sub);
      const Vec3 pos = jittered_seed_position(config, i, j, k, sub, id);
      const SourceSpec* source = nullptr;
      for (int s : pouring)
        if (config.sources[s].shape.contains(pos)) source = &config.sources[s];
      if (!source) continue;
      add_source_particle(*source, config.materials, pos, id, particles);
    }
  });
}

void ParticleEmitter::let_rain_fall(const CaseConfig& config, const Array3<uint8_t>& solid,
                                    int64_t step, double step_start_time, double step_duration,
                                    Particles& particles) {
  const int down = gravity_axis(config.gravity).first;
  for (const SourceSpec& rain : config.sources) {
    if (!rain.is_rain() || step_start_time >= rain.emit_until) continue;
    const double height = rain.shape.max[down] - rain.shape.min[down];
    const double chance = rain.rain_rate * step_duration / height;
    const Box cells = cells_around(rain.shape, config).intersect(owned_);
    if (cells.empty()) continue;
    for_each_index(cells, [&](int i, int j, int k) {
      if (solid(i, j, k)) return;
      const int64_t cell = global_cell_index(config.cells, i, j, k);
      for (int sub = 0; sub < kParticlesPerCell; ++sub) {
        const int64_t id =
            created_particle_id(ParticleOrigin::Rain, config.cells, step, cell, sub);
        if (chance_for_id(config, id) >= chance) continue;
        const Vec3 pos = jittered_seed_position(config, i, j, k, sub, id);
        if (rain.shape.contains(pos))
          add_source_particle(rain, config.materials, pos, id, particles);
      }
    });
  }
}

}  // namespace dunesim

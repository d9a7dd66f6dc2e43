// Scenes for Richards' pore water (src/wet/richards.hpp): porous sand and reservoirs of free
// water held at fixed levels, advanced by the pore-water stage alone on the real grid, halo
// and rank layout. Nothing else moves, so a step can be as long as the soil needs.
#pragma once
#include <cmath>
#include <vector>

#include "decomposition/reductions.hpp"
#include "src/grid/boundaries.hpp"
#include "src/particles/pore_water.hpp"
#include "src/particles/seeding.hpp"
#include "src/wet/richards.hpp"
#include "src/driver/simulation.hpp"
#include "tests/scenes.hpp"

namespace dunesim::test {

// Carsel & Parrish (1988)'s sand: theta_s 0.43, theta_r 0.045, alpha 14.5 1/m, n 2.68,
// K_s 7.13 m/day.
inline MaterialSpec richards_sand() {
  MaterialSpec sand;
  sand.name = "sand";
  sand.kind = MaterialKind::Sand;
  sand.density = 1600;
  sand.wet.porosity = 0.43;
  sand.wet.pore_flow = PoreFlow::Richards;
  sand.wet.conductivity = 7.13 / 86400;
  sand.wet.van_genuchten_alpha = 14.5;
  sand.wet.van_genuchten_n = 2.68;
  sand.wet.residual_saturation = 0.045 / 0.43;
  return sand;
}

// A box of `cells` at `dx` (gravity -z) holding sand blocks and water blocks (reservoirs).
// The sand is material 1 (`sand`), or `more_sands[b.material - 2]` for a block that says so.
// Each reservoir is a block of water whose level stays at its top: its cells' pressure is
// hydrostatic below that level, and after every step its particles are seeded again.
// Water that seeps into open cells elsewhere is taken away (and counted).
class PoreScene {
 public:
  struct Block {
    Vec3 min, max;
    double level = -1;  // a reservoir's water level (heads) if not its top, m
    int material = 1;   // a sand block's
    double surface() const { return level >= 0 ? level : max[2]; }
  };
  PoreScene(MPI_Comm comm, Index3 cells, double dx, const MaterialSpec& sand,
            const std::vector<Block>& sand_blocks, const std::vector<Block>& reservoirs,
            const std::vector<MaterialSpec>& more_sands = {})
      : config_(scene_case(cells, dx, sand, sand_blocks, reservoirs, more_sands)),
        topo_(comm, config_.cells, 3),
        halo_(topo_),
        flow_(topo_),
        reservoirs_(reservoirs) {
    grid_.allocate(topo_, dx);
    grid_.allocate_pore_water(topo_, has_several_porosities(config_.materials));
    grid_.allocate_pore_release(topo_);
    mark_static_solids(config_, grid_.solid);
    particles_ = seed_particles(config_, topo_, grid_.solid);
    keep_reservoir_particles();
    set_reservoir_pressure();
  }

  // One step of the pore-water stage, then the reservoirs are restored.
  PoreFlowStats advance(double dt) {
    const PoreFlowStats s = flow_.advance(halo_, config_, sand(), ++step_, dt, grid_, particles_);
    restore_reservoirs();
    return s;
  }

  const MaterialSpec& sand() const { return config_.materials[1]; }
  const CaseConfig& config() const { return config_; }
  const Topology& topology() const { return topo_; }
  const Particles& particles() const { return particles_; }
  // Water the reservoirs were given back to keep their levels (negative: taken), all ranks.
  double fed() const { return global_sum(topo_, fed_); }
  // Of that, the water that left the sand into open cells outside the reservoirs (a seepage
  // face), all ranks.
  double seeped() const { return global_sum(topo_, seeped_); }

  // Water in pores, water particles and water owed to free water, all ranks.
  double total_water() const {
    double sum = 0;
    for (size_t n = 0; n < particles_.size(); ++n) sum += particles_.water_content[n];
    for_each_index(topo_.owned_cells(topo_.rank()),
                   [&](int i, int j, int k) { sum += grid_.pore_release(i, j, k); });
    return global_sum(topo_, sum);
  }

  // Mean saturation of the sand in each layer of cells (bottom first; -1 without sand), each
  // particle's in its own material's pores.
  std::vector<double> layer_saturation() const {
    const int layers = config_.cells[2];
    std::vector<double> sums(2 * layers, 0.0);
    for (size_t n = 0; n < particles_.size(); ++n) {
      const MaterialSpec& m = config_.materials[particles_.material[n]];
      if (m.kind != MaterialKind::Sand) continue;
      const int l = int(std::floor(particles_.z[n] / config_.cell_size));
      sums[l] += particles_.water_content[n] / m.wet.porosity;
      sums[layers + l] += 1;
    }
    global_sum_in_place(topo_, sums.data(), int(sums.size()));
    std::vector<double> s(layers, -1.0);
    for (int l = 0; l < layers; ++l)
      if (sums[layers + l] > 0) s[l] = sums[l] / sums[layers + l];
    return s;
  }

 private:
  static CaseConfig scene_case(Index3 cells, double dx, const MaterialSpec& sand,
                               const std::vector<Block>& sand_blocks,
                               const std::vector<Block>& reservoirs,
                               const std::vector<MaterialSpec>& more_sands) {
    const Vec3 size{cells[0] * dx, cells[1] * dx, cells[2] * dx};
    CaseConfig c = water_box_case(size, dx, {0, 0, 0}, {0, 0, 0}, 0.5);
    c.sources.clear();
    c.materials.push_back(sand);
    c.materials.insert(c.materials.end(), more_sands.begin(), more_sands.end());
    for (int material : {0, 1})
      for (const Block& b : material == 0 ? reservoirs : sand_blocks) {
        SourceSpec s;
        s.material = material == 0 ? 0 : b.material;
        s.shape.min = b.min;
        s.shape.max = b.max;
        c.sources.push_back(s);
      }
    return c;
  }

  const Block* reservoir_of(int i, int j, int k) const {
    const double dx = config_.cell_size;
    const Vec3 c{(i + 0.5) * dx, (j + 0.5) * dx, (k + 0.5) * dx};
    for (const Block& b : reservoirs_)
      if (c[0] > b.min[0] && c[0] < b.max[0] && c[1] > b.min[1] && c[1] < b.max[1] &&
          c[2] > b.min[2] && c[2] < b.max[2])
        return &b;
    return nullptr;
  }

  void set_reservoir_pressure() {
    const double weight = sand().wet.pore_water_density * 9.81;
    grid_.pressure.fill(0.0);
    for_each_index(topo_.local(Stagger::Cell), [&](int i, int j, int k) {
      if (const Block* b = reservoir_of(i, j, k))
        grid_.pressure(i, j, k) = weight * (b->surface() - (k + 0.5) * config_.cell_size);
    });
  }

  // Every water particle leaves and the reservoirs' first particles come back whole, so
  // each keeps its level whatever the sand took or gave; the difference is counted.
  void restore_reservoirs() {
    const double inv_dx = 1.0 / config_.cell_size;
    for (size_t n = 0; n < particles_.size(); ++n) {
      if (particles_.material[n] != 0) continue;
      fed_ -= particles_.water_content[n];
      const auto [i, j, k] = particle_cell(particles_, n, inv_dx);
      if (!reservoir_of(i, j, k)) seeped_ += particles_.water_content[n];
    }
    particles_.keep_only([&](size_t n) { return particles_.material[n] != 0; });
    particles_.append_packed(reservoir_particles_.data(), reservoir_count_);
    fed_ += double(reservoir_count_);
    // Water owed to open cells leaves too (a reservoir's joins its level).
    for_each_index(topo_.owned_cells(topo_.rank()), [&](int i, int j, int k) {
      const double owed = grid_.pore_release(i, j, k);
      fed_ -= owed;
      if (!reservoir_of(i, j, k)) seeped_ += owed;
      grid_.pore_release(i, j, k) = 0;
    });
  }

  void keep_reservoir_particles() {
    for (size_t n = 0; n < particles_.size(); ++n) {
      if (particles_.material[n] != 0) continue;
      reservoir_particles_.resize(reservoir_particles_.size() + particles_.packed_bytes());
      particles_.pack(n, reservoir_particles_.data() + reservoir_particles_.size() -
                             particles_.packed_bytes());
      ++reservoir_count_;
    }
  }

  CaseConfig config_;
  Topology topo_;
  Halo halo_;
  MacGrid grid_;
  PoreWaterFlow flow_;
  Particles particles_;
  std::vector<Block> reservoirs_;
  std::vector<char> reservoir_particles_;  // packed, as seeded
  size_t reservoir_count_ = 0;
  int64_t step_ = 0;
  double fed_ = 0, seeped_ = 0;  // this rank
};

}  // namespace dunesim::test

// Initial particles: 8 per cell, jittered from the 2x2x2 sub-grid (thesis section 3.2).
#pragma once
#include <functional>

#include "decomposition/topology.hpp"
#include "io/case_config.hpp"
#include "src/grid/mac_grid.hpp"
#include "decomposition/particles.hpp"

namespace dunesim {

constexpr int kParticlesPerCell = 8;

// Index of cell (i, j, k) in the whole grid, x fastest.
int64_t global_cell_index(const Index3& cells, int i, int j, int k);

// What created a particle during the run (after the initial seeding).
enum class ParticleOrigin { Pour, Rain, Seepage };

// The id of a particle created during step `step` (>= 1) in global cell `cell`, slot `slot`
// (< 8: the sub-cell, or for seepage the face the water left by). With C cells in the grid:
//   pouring sources  8 C step + 8 cell + slot   (the initial seeds' ids are below 8 C)
//   rain            -(1 + 2 (8 C step + 8 cell + slot))
//   seepage         -(2 + 2 (8 C step + 8 cell + slot))
// so ids never repeat within a run and do not depend on the rank count.
int64_t created_particle_id(ParticleOrigin origin, const Index3& cells, int64_t step,
                            int64_t cell, int slot);

// A number in [0, 1) that depends only on the case seed and `id` (and not on the jitter of
// the same id): decides whether a rain drop falls.
double chance_for_id(const CaseConfig& config, int64_t id);

// Position of sub-cell `sub` (bit a set = upper half along axis a) of cell (i, j, k),
// jittered by up to half a sub-cell by a pure function of the case seed and `id`.
Vec3 jittered_seed_position(const CaseConfig& config, int i, int j, int k, int sub, int64_t id);

// Appends a particle that `source` creates at `position`: every attribute of Particles is
// set here, for the initial seeding and for pouring sources alike.
void add_source_particle(const SourceSpec& source, const std::vector<MaterialSpec>& materials,
                         const Vec3& position, int64_t id, Particles& particles);

// Whether the case's particles carry an affine velocity (Particles::affine): a material
// with transfer = "apic" or "rpic".
bool needs_particle_affine(const CaseConfig& config);

// Whether the case's particles carry their water content (Particles::water_content): a sand
// material with pores. Without one no water moves, and Particles::water_of(n) gives each
// particle its material's entry of water_without_pores().
bool needs_particle_water(const CaseConfig& config);
std::vector<double> water_without_pores(const std::vector<MaterialSpec>& materials);
// Starts or stops carrying the water content as the case needs (after seeding or a restart).
void carry_water_as_needed(const CaseConfig& config, Particles& particles);

// A new particle's water content: 1 for water (a whole particle), n S for sand.
double water_content_of_new_particle(const SourceSpec& source,
                                     const std::vector<MaterialSpec>& materials);

// Seeds the owned cells of this rank. The jitter of a particle depends only on the case
// seed and its global cell index, and its id is 8 * (global cell index) + sub-cell, so any
// number of ranks creates exactly the same particles. A sub-cell position belongs to the
// last source that contains it; positions in solid cells get no particle. With
// carry_stress the particles carry a stress, unloaded (the sand model's
// carries_particle_stress).
Particles seed_particles(const CaseConfig& config, const Topology& topo,
                         const Array3<uint8_t>& solid, bool carry_stress = false);

// The same positions without storing them: calls visit(position, source index, id) for each
// particle that seed_particles would create (used to measure work before the layout exists).
void for_each_seed(const CaseConfig& config, const Topology& topo, const Array3<uint8_t>& solid,
                   const std::function<void(const Vec3&, int, int64_t)>& visit);

}  // namespace dunesim

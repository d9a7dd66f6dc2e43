// Scenes built in code for the tests: a box domain with one block of water or of sand.
#pragma once
#include <cmath>

#include "io/case_config.hpp"

namespace dunesim::test {

inline CaseConfig water_box_case(Vec3 domain, double cell, Vec3 water_min, Vec3 water_max,
                                 double jitter = 1.0) {
  CaseConfig c;
  c.file = "<test>";
  c.name = "test";
  c.domain_size = domain;
  set_cell_size(c, cell);
  c.jitter = jitter;
  MaterialSpec water;
  water.name = "water";
  c.materials.push_back(water);
  SourceSpec s;
  s.material = 0;
  s.shape.kind = ShapeSpec::Kind::Block;
  s.shape.min = water_min;
  s.shape.max = water_max;
  c.sources.push_back(s);
  c.pressure.rtol = 1e-10;
  c.output.directory = "test_output";
  return c;
}

// A soaked block of `sand` (8 x 4 x 10 cm, S = 1) at one end of a 0.3 x 0.04 x 0.2 m slab
// (1 cm cells) and a pool of water 5 cm deep at the other (x >= 0.2 m): the block slumps and
// seeps. The pressure is solved to 1e-8 so that the run's water sums are not the solver's.
inline CaseConfig soaked_block_beside_pool(const MaterialSpec& sand) {
  CaseConfig c = water_box_case({0.3, 0.04, 0.2}, 0.01, {0.2, 0, 0}, {0.3, 0.04, 0.05});
  c.materials.push_back(sand);
  SourceSpec block;
  block.material = 1;
  block.shape.min = {0.0, 0.0, 0.0};
  block.shape.max = {0.08, 0.04, 0.1};
  block.saturation = 1.0;
  c.sources.push_back(block);
  c.pressure.rtol = 1e-8;
  return c;
}

// The same with a block of dry sand (1600 kg/m^3, the cases' 95% PIC) instead of water.
inline CaseConfig sand_box_case(Vec3 domain, double cell, Vec3 sand_min, Vec3 sand_max,
                                double friction_angle_deg) {
  CaseConfig c = water_box_case(domain, cell, sand_min, sand_max, 1.0);
  MaterialSpec& sand = c.materials[0];
  sand.name = "sand";
  sand.kind = MaterialKind::Sand;
  sand.density = 1600;
  sand.flip_ratio = 0.05;
  sand.friction_angle_deg = friction_angle_deg;
  return c;
}

// A cohesive block (1000 Pa) of rigid-plastic sand in the corner of a floor of mu 0.5 tilted
// by `tilt_deg` along x (gravity turned): it rests below atan(0.5) = 26.6 degrees, held by
// the floor's friction, and slides above.
inline CaseConfig rigid_plastic_block_on_tilted_floor(Vec3 domain, Vec3 block_max,
                                                      double tilt_deg) {
  CaseConfig c = water_box_case(domain, 0.01, {0, 0, 0}, block_max, 1.0);
  MaterialSpec& sand = c.materials[0];
  sand.kind = MaterialKind::Sand;
  sand.density = 1600;
  sand.cohesion = 1000;
  sand.rheology.kind = SandRheology::Kind::RigidPlastic;
  c.wall_friction = 0.5;
  const double tilt = tilt_deg * M_PI / 180;
  c.gravity = {9.81 * std::sin(tilt), 0.0, -9.81 * std::cos(tilt)};
  return c;
}

// The default sand model as the case reader sets it (model = "validated", gravity along -z):
// APIC, rigid cells moving with their cluster, Culmann's wedges, resting grains holding.
inline void validated_model(MaterialSpec& sand) {
  sand.transfer = Transfer::Apic;
  sand.rheology.rigid_cells_own_velocity = true;
  sand.rheology.culmann_wedges_yield = true;
  sand.rheology.resting_grains_hold = true;
}

// Puts a strong layer under the sand of the case's first source: a copy of its material
// (phi 35, cohesion 2 kPa) filling the same block from the floor to `height`, which the
// first source's block must start at.
inline void add_strong_layer_under(CaseConfig& c, double height) {
  MaterialSpec strong = c.materials[0];
  strong.name = "strong";
  strong.friction_angle_deg = 35;
  strong.cohesion = 2000;
  c.materials.push_back(strong);
  SourceSpec lower = c.sources[0];
  lower.material = int(c.materials.size()) - 1;
  lower.shape.min[2] = 0;
  lower.shape.max[2] = height;
  c.sources.push_back(lower);
}

}  // namespace dunesim::test

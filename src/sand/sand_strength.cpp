#include "src/sand/sand_strength.hpp"

#include <algorithm>

#include "src/grid/interpolation.hpp"

namespace dunesim {

SandStrength material_strength(const MaterialSpec& sand) {
  const double phi = sand.friction_angle_deg * M_PI / 180.0;
  return {std::sin(phi), std::tan(phi), sand.cohesion, sand.wet.cohesion_wet};
}

bool has_several_sand_materials(const std::vector<MaterialSpec>& materials) {
  return std::count_if(materials.begin(), materials.end(),
                       [](const MaterialSpec& m) { return m.kind == MaterialKind::Sand; }) > 1;
}

void SandStrengths::mix(const Topology& topo, Halo& halo, const MacGrid& grid,
                        const Particles& particles, const std::vector<MaterialSpec>& materials) {
  const Box block = topo.local(Stagger::Cell);
  for (Array3<float>* a : {&tan_phi_, &cohesion_, &cohesion_wet_, &mass_})
    a->reset_within(block, grid.sand_window, Stagger::Cell, 0.0f);
  std::vector<SandStrength> of_material;
  for (const MaterialSpec& m : materials) of_material.push_back(material_strength(m));
  // Each particle stands for the same volume, so its mass goes as its material's density.
  const double inv_dx = 1.0 / grid.dx;
  for (size_t n = 0; n < particles.size(); ++n) {
    const MaterialSpec& m = materials[particles.material[n]];
    if (m.kind != MaterialKind::Sand) continue;
    const GridPoint pt(particles.x[n], particles.y[n], particles.z[n], inv_dx);
    const int i = pt.node[0], j = pt.node[1], k = pt.node[2];
    if (!mass_.box().contains(i, j, k)) continue;
    const SandStrength& s = of_material[particles.material[n]];
    mass_(i, j, k) += float(m.density);
    tan_phi_(i, j, k) += float(m.density * s.tan_phi);
    cohesion_(i, j, k) += float(m.density * s.cohesion);
    cohesion_wet_(i, j, k) += float(m.density * s.cohesion_wet);
  }
  for_each_index(mass_.box(), [&](int i, int j, int k) {
    const float mass = mass_(i, j, k);
    if (mass > 0) {
      tan_phi_(i, j, k) /= mass;
      cohesion_(i, j, k) /= mass;
      cohesion_wet_(i, j, k) /= mass;
    } else {
      tan_phi_(i, j, k) = float(uniform_.tan_phi);
      cohesion_(i, j, k) = float(uniform_.cohesion);
      cohesion_wet_(i, j, k) = float(uniform_.cohesion_wet);
    }
  });
  halo.fill<float>({&tan_phi_, &cohesion_, &cohesion_wet_});
  mixed_ = true;
}

}  // namespace dunesim

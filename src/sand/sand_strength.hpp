// The strength of each sand cell before water: its friction and its cohesion, dry and at the
// ideal saturation. A case with one sand material has that material's in every cell. With
// several (layered soils, dry sand over a cohesive substrate), each particle carries its
// material and a cell takes the mass-weighted mean of its sand particles' materials, so a
// boundary between layers is a cell or two of mixed strength. Friction mixes as tan(phi),
// the Coulomb coefficient that a cell's contacts share.
#pragma once
#include <cmath>
#include <vector>

#include "decomposition/array3.hpp"
#include "decomposition/halo.hpp"
#include "decomposition/particles.hpp"
#include "decomposition/topology.hpp"
#include "io/case_config.hpp"
#include "src/grid/mac_grid.hpp"

namespace dunesim {

struct SandStrength {
  double sin_phi = 0, tan_phi = 0;  // of the friction angle phi
  double cohesion = 0;              // c_dry, Pa
  double cohesion_wet = 0;          // c_wet, Pa: the cohesion at the ideal saturation
};

// One material's strength (the same numbers as its friction law's).
SandStrength material_strength(const MaterialSpec& sand);

// Whether `materials` holds more than one sand material: then cells mix their strengths.
bool has_several_sand_materials(const std::vector<MaterialSpec>& materials);

class SandStrengths {
 public:
  // The material's strength in every cell.
  explicit SandStrengths(const MaterialSpec& sand) : uniform_(material_strength(sand)) {}

  // The mix over the sand cells of the sand window from this rank's particles (each in one
  // of its owned cells, as after P2G), ghosts filled. A cell without sand particles keeps
  // the material's strength the strengths were made with. Collective.
  void mix(const Topology& topo, Halo& halo, const MacGrid& grid, const Particles& particles,
           const std::vector<MaterialSpec>& materials);

  // Whether every cell has one material's strength (no mix was made).
  bool uniform() const { return !mixed_; }
  SandStrength at(int i, int j, int k) const {
    if (!mixed_) return uniform_;
    const double tan_phi = tan_phi_(i, j, k);
    return {tan_phi / std::sqrt(1 + tan_phi * tan_phi), tan_phi, cohesion_(i, j, k),
            cohesion_wet_(i, j, k)};
  }

 private:
  SandStrength uniform_;
  bool mixed_ = false;
  Array3<float> tan_phi_, cohesion_, cohesion_wet_, mass_;  // over the block's sand window
};

}  // namespace dunesim

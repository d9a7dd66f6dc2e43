// Solid boundaries: the box walls and static colliders.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "io/case_config.hpp"
#include "src/grid/mac_grid.hpp"
#include "decomposition/particles.hpp"

namespace dunesim {

// Marks cells outside the domain and cells whose centre lies inside a collider as solid
// (1) in `solid`, over its whole box.
void mark_static_solids(const CaseConfig& config, Array3<uint8_t>& solid);

// Coulomb coefficient of every solid cell in `wall_mu`'s box: the case's wall_friction for
// the box walls (0 beyond its frictionless_walls), each collider's friction inside it, 0
// elsewhere.
void mark_wall_friction(const CaseConfig& config, Array3<float>& wall_mu);

// The faces between a solid and a non-solid cell, as offsets into grid.vel[a] for each
// component a. `solid` is nonzero in solid cells; cells outside its box count as solid.
// Solids are static, so a simulation finds these once per grid layout.
using SolidBoundaryFaces = std::array<std::vector<int64_t>, 3>;
SolidBoundaryFaces find_solid_boundary_faces(const Array3<uint8_t>& solid, const MacGrid& grid);
// The same, for a grid whose solids are the kSolid cells of grid.cell_type.
SolidBoundaryFaces find_solid_boundary_faces(const MacGrid& grid);

// No flow through solids: the normal velocity on every face between a solid and a
// non-solid cell becomes the solid's (static solids: zero). Faces inside a solid keep
// their (extrapolated) value, so tangential flow along a wall interpolates as free slip;
// friction is a sand stage.
void enforce_solid_velocity(const SolidBoundaryFaces& faces, MacGrid& grid);
// The same, for a grid whose solids are the kSolid cells of grid.cell_type.
void enforce_solid_velocity(MacGrid& grid);

// Moves particles that ended inside a solid back just outside it, along the shortest way
// out (thesis section 3.2: RK2 truncation error otherwise leaves particles stuck in walls).
class SolidPushOut {
 public:
  SolidPushOut(const CaseConfig& config, double dx);
  void apply(double& x, double& y, double& z) const;

 private:
  Vec3 domain_;
  double margin_;  // how far inside the fluid region a pushed particle lands, m
  std::vector<ShapeSpec> colliders_;
};

}  // namespace dunesim

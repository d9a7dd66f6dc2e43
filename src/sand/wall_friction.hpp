// Coulomb friction between sand and static solids (Zhu & Bridson 2005, eq. 4):
//     u_T <- max(0, 1 - mu |u_n| / |u_T|) u_T,
// where |u_n| is the normal speed the solid takes away from the sand in this step.
//
// Two readings of |u_n| are provided:
//  - normal_speed_removed_by_enforcement: the paper's, the velocity into the solid that the
//    boundary condition just removed. It sees only the momentum of the cells touching the
//    wall, so the sand above them adds nothing to the friction;
//  - normal_speed_from_wall_pressure: the normal stress p the projection puts on the wall,
//    as the speed it removes in a step, p dt / (rho dx). It carries the weight of everything
//    above, so a block on a slope feels mu times its whole weight (the simulator's choice).
//
// On the MAC grid:
//  - normal faces are the faces between a non-solid cell C and a solid cell C + s e_a
//    (s = -1 or +1), where normal_speed holds |u_n| (>= 0; WallFaceValues, a list of the
//    walls' faces: 0 on a face it does not hold);
//  - a tangential face of component b lies between two non-solid cells L and R, at least one
//    of them sand. For each wall direction (a, s), a != b, that the face touches, its friction
//    budget is mu |u_n| averaged over L and R: mu of the solid cell C + s e_a times |u_n| on
//    C's normal face, or 0 for a cell with no solid there (so a face at the edge of a step
//    gets half). Where L or R is air the face takes the other cell's budget alone: a face
//    on the free surface carries only its fluid cell's material.
//  - |u_T| for that wall is the length of (u_b, u_c) at the face, c the third axis, with u_c
//    the mean of the four c-faces of L and R. The face keeps its b-component scaled by
//    max(0, 1 - budget / |u_T|), the vector rule of eq. 4 read off at this face; a face
//    touching walls along two axes (a corner) gets both factors.
// Water keeps free slip: faces with no sand cell on either side are left alone.
#pragma once
#include <array>
#include <cstdint>

#include "decomposition/array3.hpp"
#include "decomposition/halo.hpp"
#include "decomposition/topology.hpp"
#include "decomposition/vec3.hpp"
#include "src/grid/boundaries.hpp"
#include "src/grid/mac_grid.hpp"

namespace dunesim {

// `wall_mu` holds mu in solid cells (box walls outside the domain, colliders); other cells
// are not read. `sand_cells`, grid.cell_type and the velocities must be halo-consistent.
// `normal_speed` must hold the walls' faces of the cells within two cells of a sand cell.
// `walls` are the grid's faces between a solid and a non-solid cell
// (find_solid_boundary_faces): only the faces next to them are visited.
// Faces with a cell of `rigid_cells` on either side are left alone: the rigid-cluster stage
// fits its bodies to those faces and applies the walls' friction to each body as a whole,
// so braking them here too would brake a body that touches sliding cells twice.
// Updates owned faces, then halo-fills the velocities.
void apply_wall_friction(const Topology& topo, Halo& halo, MacGrid& grid,
                         const Array3<uint8_t>& sand_cells, const Array3<float>& wall_mu,
                         const WallFaceValues& normal_speed, const SolidBoundaryFaces& walls,
                         const Array3<uint8_t>* rigid_cells = nullptr);

// The budget mu |u_n| (m/s, the speed the wall's friction may take away in a step) of the
// tangential face between cells L and R for the wall at side s along axis a (0 where no
// wall is there): the mean of the two cells', or the one cell's where the other is air.
double wall_friction_budget(const MacGrid& grid, const Array3<float>& wall_mu,
                            const WallFaceValues& normal_speed, const Index3& L, const Index3& R,
                            int a, int s);

// |u_n| = max(0, s (u_before - u_after)) on each normal face: only motion into the solid
// presses sand against it; sand leaving a wall feels no friction.
void normal_speed_removed_by_enforcement(const MacGrid& grid,
                                         const std::array<Array3<double>, 3>& before,
                                         WallFaceValues& normal_speed);

// |u_n| a cell pressed on a wall with `normal_stress` (Pa, compression positive) takes to
// it in a step: max(0, normal_stress) dt / (rho dx), and at least the cell's own weight,
// g_n dt, with g_n the part of gravity towards the wall.
double wall_normal_speed(double normal_stress, double density, double dx, double dt,
                         double gravity_towards_wall);

// |u_n| = max(0, p) dt / (rho dx) on each normal face, from the pressure and density of the
// fluid cell next to the wall (call after the projection), and at least the cell's own
// weight, g_n dt with g_n the part of gravity towards the wall: a cell with air beside it
// shares its pressure with its open faces (a lone cell on a floor has a fifth of its weight
// in p), yet rests on the floor with all of it. normal_speed then holds the faces of `cells`
// among `walls` (the grid's solid boundary faces, find_solid_boundary_faces) that have a
// fluid cell on their other side, and no other.
void normal_speed_from_wall_pressure(const MacGrid& grid, double dt, const Vec3& gravity,
                                     const Box& cells, const SolidBoundaryFaces& walls,
                                     WallFaceValues& normal_speed);

}  // namespace dunesim

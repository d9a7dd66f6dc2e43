// Particle <-> grid transfers of the PIC/FLIP method (thesis section 3.2).
#pragma once
#include <vector>

#include "decomposition/halo.hpp"
#include "io/case_config.hpp"
#include "src/grid/boundaries.hpp"
#include "src/grid/mac_grid.hpp"
#include "src/sand/rigid_clusters.hpp"
#include "decomposition/particles.hpp"

namespace dunesim {

// P2G: each face velocity becomes the trilinear-weighted average of nearby particle
// velocities, each particle's taken at the face under APIC (Particles::affine);
// contributions from ghost faces are summed into their owners. Faces with no particle
// weight get 0. Cells holding a particle become fluid, with the mean density of their
// particles; when the grid tracks sand, fluid cells whose particles are mostly sand are
// marked sand. Leaves every array halo-consistent except grid.vel_saved and
// grid.cell_scratch, which it uses as scratch (see MacGrid).
void particles_to_grid(const Particles& particles, const std::vector<MaterialSpec>& materials,
                       Halo& halo, const Topology& topo, MacGrid& grid);

// G2P: blends PIC (the new grid velocity) and FLIP (the particle velocity plus the grid's
// change since P2G) with each material's flip_ratio; a material with transfer = apic takes
// the grid velocity and its gradient (the affine velocity P2G spreads with), one with rpic
// the gradient's rotation only. A sand particle in a rigid cell, when its material's
// rigid_cell_velocity is "own_cell", moves with its rigid cluster instead: it takes the
// cluster's motion from `rigid_motions` (this step's fit, labelled as grid.rigid_clusters),
// or, for a cluster not found there, reads only its own cell's faces
// (docs/findings/rigid_cells_move_with_their_cluster.md).
void grid_to_particles(const MacGrid& grid, const std::vector<MaterialSpec>& materials,
                       Particles& particles, const RigidMotions* rigid_motions = nullptr);

// Advection after grid_to_particles (with the same grid, motions and particle positions):
// advect_particles (src/particles/advection.hpp) over dt, but a particle G2P moved with its
// rigid cluster moves along the cluster's motion, not through the grid, whose faces the
// second projection corrected after the fit.
void advect_after_grid_to_particles(const MacGrid& grid,
                                    const std::vector<MaterialSpec>& materials,
                                    Particles& particles, const RigidMotions* rigid_motions,
                                    double dt, const SolidPushOut& push_out);

// grid_to_particles, then advect_after_grid_to_particles over dt, a block of
// particles at a time: the same particles to the last bit, but advection's first
// midpoint stage takes the grid velocity G2P has just interpolated at the particle instead
// of interpolating it again (it was half of advection's gathers;
// docs/findings/stage_bandwidth.md). Only where nothing changes the particles' velocities
// between the two (Darcy's drag does).
void grid_to_particles_and_advect(const MacGrid& grid, const std::vector<MaterialSpec>& materials,
                                  Particles& particles, const RigidMotions* rigid_motions,
                                  double dt, const SolidPushOut& push_out);

}  // namespace dunesim

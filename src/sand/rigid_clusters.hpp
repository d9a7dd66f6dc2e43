// Sand that does not yield moves as rigid bodies (thesis section 2.3.4): every connected
// group of rigid cells has its face velocities replaced by the rigid motion with the same
// linear and angular momentum.
#pragma once
#include <array>
#include <cstdint>
#include <map>

#include "decomposition/array3.hpp"
#include "decomposition/halo.hpp"
#include "decomposition/topology.hpp"
#include "src/grid/mac_grid.hpp"

namespace dunesim {

// u(x) = velocity + angular_velocity x (x - reference).
struct RigidMotion {
  std::array<double, 3> velocity{0, 0, 0};          // of the reference point, m/s
  std::array<double, 3> angular_velocity{0, 0, 0};  // rad/s
  std::array<double, 3> reference{0, 0, 0};         // centre of the cluster's root cell, m
};

// Each cluster's motion by its label (ComponentLabels: the smallest global cell index in it).
using RigidMotions = std::map<int64_t, RigidMotion>;

// The velocity of `motion` at point x.
// (The position as three values: a caller's position built as an array in memory and read
// back as one vector stalled the advection of resting sand on the forwarding of its stores.)
inline std::array<double, 3> rigid_velocity_at(const RigidMotion& motion, double x, double y,
                                               double z) {
  const std::array<double, 3>& w = motion.angular_velocity;
  const double r0 = x - motion.reference[0], r1 = y - motion.reference[1],
               r2 = z - motion.reference[2];
  return {motion.velocity[0] + w[1] * r2 - w[2] * r1, motion.velocity[1] + w[2] * r0 - w[0] * r2,
          motion.velocity[2] + w[0] * r1 - w[1] * r0};
}

struct RigidClusterStats {
  int64_t clusters = 0;               // over all ranks
  int64_t largest_cluster_cells = 0;  // over all ranks
  int64_t rigid_cells = 0;            // over all ranks
  // The motion of every cluster with a cell or a face owned by this rank.
  RigidMotions motions;
};

// `rigid` marks the cells that did not yield (halo-consistent). A cluster's faces are the
// faces with a cluster cell on one side and no solid cell on either side; each carries the
// mass rho dx^3, rho the mean density of its fluid neighbours. Owned faces are updated and
// the velocity halos filled; grid.rigid_clusters keeps the labels. Collective.
//
// With `contact`, a cluster touching a wall is a rigid body resting on it (Coulomb friction,
// eq. 4, for the body as a whole): per wall direction the normal impulse per unit mass is
// the projection pressure on its contact faces times dt over its mass, plus whatever rigid
// velocity still points into the wall after the fit (which is removed); the tangential
// velocity is reduced by mu times that and clamped at zero. Friction acts on the
// translation only. Without it the projection conserves momentum exactly.
struct WallContact {
  double dt = 0;                           // s
  const Array3<float>* wall_mu = nullptr;  // Coulomb coefficient of each solid cell
};
RigidClusterStats project_rigid_clusters(const Topology& topo, Halo& halo, MacGrid& grid,
                                         const Array3<uint8_t>& rigid,
                                         const WallContact* contact = nullptr);

}  // namespace dunesim

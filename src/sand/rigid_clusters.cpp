// The rigid fit. Face f (velocity component a, mass m_f, offset r_f from the reference
// point) of a body moving with q = (v, w) has u_f = J_f q, J_f = [e_a^T, (r_f x e_a)^T].
// The momentum-conserving fit solves K q = b with K = sum m_f J_f^T J_f and
// b = sum m_f J_f^T u_f = (P, L): linear momentum and angular momentum about the reference.
// The lower-right block of K is the inertia tensor I about the reference, so on its own
// the angular velocity would follow from L = I w. The thesis' eq. 2.7,
// sum m r x v = (sum m) w, is dimensionally wrong (kg m^2/s against kg/s), and its
// v(x) = v + (x - x_bar) x w has the cross product reversed. It also takes the centre of
// mass as reference, where P and L decouple; on a MAC grid every velocity component has
// its own set of faces and hence its own centre of mass, so the full coupled 6x6 system
// is solved instead about a reference every rank can compute: the root cell's centre.
//
// Rotations are measured in cell units (w dx and r / dx) so that every entry of K is a
// mass times a dimensionless number and the rank cut-off below is independent of dx.
#include "src/sand/rigid_clusters.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "decomposition/connected_components.hpp"
#include "decomposition/reductions.hpp"

namespace dunesim {

namespace {

using Vec6 = std::array<double, 6>;
using Mat6 = std::array<Vec6, 6>;

constexpr int kStiffnessEntries = 21;  // upper triangle of K
constexpr int kMomentumOffset = kStiffnessEntries;
constexpr int kCellCountOffset = kMomentumOffset + 6;
// Wall contact, per direction d = 2 a + (s > 0) of the wall as seen from the cluster:
// pressure force on the contact faces (N), the same weighted by the wall's mu, and the
// number of contact faces (for mu where the pressure is zero); then the cluster's mass.
constexpr int kContactOffset = kCellCountOffset + 1;
constexpr int kContactSums = 3;
constexpr int kMassOffset = kContactOffset + 6 * kContactSums;
// Upper triangle of the contact constraints' stiffness (see contact_weight).
constexpr int kContactStiffnessOffset = kMassOffset + 1;
constexpr int kSumsPerCluster = kContactStiffnessOffset + kStiffnessEntries;

// Weight of a contact face (relative to its cell's mass) in the fit that keeps the body
// from moving into a wall: large, so contact faces end with normal velocities about
// 1/weight of what the free fit gave them.
constexpr double kContactWeight = 1e4;

// Eigenvalues below this fraction of the largest are rotations the cluster's faces cannot
// represent (single cells, one-cell-thick bars); they get no motion.
constexpr double kRankCutoff = 1e-12;

// J_f for a face of component a at offset r (cell units) from the reference.
constexpr Vec6 rigid_row(int a, const std::array<double, 3>& r) {
  Vec6 row{0, 0, 0, 0, 0, 0};
  row[a] = 1;
  // r x e_a
  if (a == 0) {
    row[4] = r[2];
    row[5] = -r[1];
  }
  if (a == 1) {
    row[3] = -r[2];
    row[5] = r[0];
  }
  if (a == 2) {
    row[3] = r[1];
    row[4] = -r[0];
  }
  return row;
}

// The entries of rigid_row(a, r) that can be nonzero, ascending: e_a's and r x e_a's two.
// The sums below skip the others: their terms are exact zeros, which leave a sum as it is.
constexpr std::array<int, 3> row_support(int a) {
  if (a == 0) return {0, 4, 5};
  if (a == 1) return {1, 3, 5};
  return {2, 3, 4};
}

// The place of K's entry (p, q), p <= q, in its upper triangle stored row by row.
constexpr int upper_index(int p, int q) { return p * 6 - p * (p - 1) / 2 + (q - p); }

// stiffness += weight J_f^T J_f for a face of component a with row J_f.
void add_outer_product(double* stiffness, double weight, int a, const Vec6& row) {
  const std::array<int, 3> support = row_support(a);
  for (int i = 0; i < 3; ++i)
    for (int j = i; j < 3; ++j) {
      const int p = support[i], q = support[j];
      stiffness[upper_index(p, q)] += weight * row[p] * row[q];
    }
}

// Symmetric eigen-decomposition A = V diag(lambda) V^T by cyclic Jacobi rotations,
// accurate to round-off for any symmetric matrix, singular ones included.
void symmetric_eigen(Mat6 A, Vec6& lambda, Mat6& V) {
  for (int p = 0; p < 6; ++p)
    for (int q = 0; q < 6; ++q) V[p][q] = p == q ? 1.0 : 0.0;
  for (int sweep = 0; sweep < 50; ++sweep) {
    double off = 0, total = 0;
    for (int p = 0; p < 6; ++p)
      for (int q = 0; q < 6; ++q) (p == q ? total : off) += A[p][q] * A[p][q];
    if (off <= 1e-36 * (total + off)) break;
    for (int p = 0; p < 5; ++p)
      for (int q = p + 1; q < 6; ++q) {
        if (A[p][q] == 0) continue;
        const double theta = (A[q][q] - A[p][p]) / (2 * A[p][q]);
        const double t = std::abs(theta) > 1e150 ? 0.5 / theta
                                                 : std::copysign(1.0, theta) /
                                                       (std::abs(theta) + std::hypot(theta, 1.0));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < 6; ++k) {
          const double kp = A[k][p], kq = A[k][q];
          A[k][p] = c * kp - s * kq;
          A[k][q] = s * kp + c * kq;
        }
        for (int k = 0; k < 6; ++k) {
          const double pk = A[p][k], qk = A[q][k];
          A[p][k] = c * pk - s * qk;
          A[q][k] = s * pk + c * qk;
        }
        for (int k = 0; k < 6; ++k) {
          const double kp = V[k][p], kq = V[k][q];
          V[k][p] = c * kp - s * kq;
          V[k][q] = s * kp + c * kq;
        }
      }
  }
  for (int p = 0; p < 6; ++p) lambda[p] = A[p][p];
}

// q = K^+ b, dropping the directions K cannot see. K comes from the upper-triangle entries
// in `sums` plus, if given, those in `extra_stiffness`; b from the momentum sums.
Vec6 solve_rigid_fit(const double* sums, const double* extra_stiffness = nullptr) {
  Mat6 K;
  for (int p = 0, n = 0; p < 6; ++p)
    for (int q = p; q < 6; ++q, ++n)
      K[p][q] = K[q][p] = sums[n] + (extra_stiffness ? extra_stiffness[n] : 0.0);
  Vec6 lambda;
  Mat6 V;
  symmetric_eigen(K, lambda, V);
  const double largest = *std::max_element(lambda.begin(), lambda.end());
  Vec6 q{0, 0, 0, 0, 0, 0};
  if (!(largest > 0)) return q;
  for (int e = 0; e < 6; ++e) {
    if (lambda[e] <= kRankCutoff * largest) continue;
    double along = 0;
    for (int k = 0; k < 6; ++k) along += V[k][e] * sums[kMomentumOffset + k];
    for (int k = 0; k < 6; ++k) q[k] += V[k][e] * along / lambda[e];
  }
  return q;
}

// Calls f(i, j, k, label, lo, hi) for every owned face of component a of a cluster: a
// cluster cell on one side, no solid on either side; lo and hi are its two cells' offsets in
// the grid's cell arrays. Cells outside the domain are walls, hence solid. A row along x at a
// time, walking the arrays by offset.
template <class F>
void for_each_cluster_face_along(int a, const Topology& topo, const MacGrid& grid,
                                 const ComponentLabels& labels, F&& f) {
  const Index3& n = topo.global_cells();
  const Stagger s = face_stagger(a);
  Box faces =
      topo.owned(s).intersect(topo.global(s)).intersect(faces_of_cells(labels.labelled, a));
  faces.lo[a] = std::max(faces.lo[a], 1);
  faces.hi[a] = std::min(faces.hi[a], n[a]);
  if (faces.empty()) return;
  const Array3<int64_t>& label_of = labels.of_cell;
  const int64_t label_below = label_of.stride(a), cell_below = grid.cell_type.stride(a);
  const uint8_t* type = grid.cell_type.data();
  const int length = faces.hi[0] - faces.lo[0];
  for (int k = faces.lo[2]; k < faces.hi[2]; ++k)
    for (int j = faces.lo[1]; j < faces.hi[1]; ++j) {
      const int64_t* label_hi = label_of.data() + label_of.offset(faces.lo[0], j, k);
      const int64_t first_hi = grid.cell_type.offset(faces.lo[0], j, k);
      for (int m = 0; m < length; ++m) {
        const int64_t label = std::max(label_hi[m - label_below], label_hi[m]);
        if (label < 0) continue;
        const int64_t hi = first_hi + m, lo = hi - cell_below;
        if (type[lo] == kSolid || type[hi] == kSolid) continue;
        f(faces.lo[0] + m, j, k, label, lo, hi);
      }
    }
}

// Coulomb contact of the rigid body with the walls it touches (see rigid_clusters.hpp):
// `free` is the fit without contacts, `q` the fit with the contact constraints, whose
// tangential velocity friction then reduces.
void apply_wall_contact(const double* sums, double dt, const Vec6& free, Vec6& q) {
  const double mass = sums[kMassOffset];
  if (!(mass > 0)) return;
  for (int d = 0; d < 6; ++d) {
    const double* c = sums + kContactOffset + d * kContactSums;
    const double faces = c[2];
    if (faces == 0) continue;
    const int a = d / 2, s = d % 2 ? 1 : -1;
    // Normal impulse per unit mass: the wall's pressure over the step, plus the motion into
    // the wall that the contact constraints took away.
    const double stopped = std::max(0.0, s * (free[a] - q[a]));
    const double normal_speed = c[0] * dt / mass + stopped;
    const double mu = c[0] > 0 ? c[1] / c[0] : 0.0;
    const int b = (a + 1) % 3, e = (a + 2) % 3;
    const double tangential = std::hypot(q[b], q[e]);
    if (tangential == 0) continue;
    const double factor = std::max(0.0, 1.0 - mu * normal_speed / tangential);
    q[b] *= factor;
    q[e] *= factor;
  }
}

// The sums of each rigid cluster this rank sees, by label, and the cluster each face or
// cell belongs to. Offsets are in cells from the cluster's reference point, the centre of
// its lowest-indexed cell (its label), so that the fits of far-apart clusters are equally
// well conditioned. Consecutive cells and faces mostly belong to the same cluster: select()
// looks the map up only on a change.
class ClusterSums {
 public:
  ClusterSums(const Topology& topo, const MacGrid& grid) : topo_(topo), grid_(grid) {}
  // The sums of the cluster `label`, made zero the first time it is seen.
  double* select(int64_t label) {
    if (label != current_label_) {
      std::vector<double>& s = sums_[label];
      if (s.empty()) s.assign(kSumsPerCluster, 0.0);
      current_label_ = label;
      current_ = s.data();
      reference_ = reference_of(label);
    }
    return current_;
  }
  std::array<double, 3> reference_of(int64_t label) const {
    const Index3 c = cell_of_global_index(topo_, label);
    return grid_.cell_centre(c[0], c[1], c[2]);
  }
  // Face (a, i,j,k)'s offset from the selected cluster's reference point, in cells.
  std::array<double, 3> offset_in_cells(int a, int i, int j, int k) const {
    const std::array<double, 3> x = grid_.face_position(a, i, j, k);
    const double dx = grid_.dx;
    return {(x[0] - reference_[0]) / dx, (x[1] - reference_[1]) / dx,
            (x[2] - reference_[2]) / dx};
  }
  std::map<int64_t, std::vector<double>>& by_label() { return sums_; }
  const std::map<int64_t, std::vector<double>>& by_label() const { return sums_; }

 private:
  const Topology& topo_;
  const MacGrid& grid_;
  std::map<int64_t, std::vector<double>> sums_;
  int64_t current_label_ = -1;
  double* current_ = nullptr;
  std::array<double, 3> reference_{0, 0, 0};
};

// Rigid cell (i,j,k)'s contacts with the walls beside it: the normal force its pressure
// puts on each, that force times the wall's mu, and a stiff row asking the contact face for
// zero normal velocity.
void add_wall_contacts(const MacGrid& grid, const Topology& topo, const WallContact& contact,
                       const ClusterSums& sums, int i, int j, int k, double* current) {
  const double dx = grid.dx;
  const double cell_volume = dx * dx * dx;
  const Index3& n_cells = topo.global_cells();
  for (int d = 0; d < 6; ++d) {
    const int a = d / 2, s = d % 2 ? 1 : -1;
    Index3 wall{i, j, k};
    wall[a] += s;
    const bool outside = wall[a] < 0 || wall[a] >= n_cells[a];
    if (!outside && grid.cell_type(wall[0], wall[1], wall[2]) != kSolid) continue;
    const double force = std::max(0.0, grid.pressure(i, j, k)) * dx * dx;
    double* c = current + kContactOffset + d * kContactSums;
    c[0] += force;
    c[1] += force * (*contact.wall_mu)(wall[0], wall[1], wall[2]);
    c[2] += 1;
    // The contact face asks for zero normal velocity, with a large weight.
    Index3 face{i, j, k};
    if (s > 0) face[a] += 1;
    const Vec6 row = rigid_row(a, sums.offset_in_cells(a, face[0], face[1], face[2]));
    const double weight = kContactWeight * grid.density(i, j, k) * cell_volume;
    add_outer_product(current + kContactStiffnessOffset, weight, a, row);
  }
}

// Each owned rigid cell's count, mass and wall contacts. Returns the owned rigid cells.
int64_t add_cell_sums(const Topology& topo, const MacGrid& grid, const ComponentLabels& labels,
                      const WallContact* contact, ClusterSums& sums) {
  int64_t rigid_cells = 0;
  const double dx = grid.dx;
  const double cell_volume = dx * dx * dx;
  const Box owned_labelled = topo.owned_cells(topo.rank()).intersect(labels.labelled);
  if (owned_labelled.empty()) return 0;
  const Index3& n_cells = topo.global_cells();
  const uint8_t* type = grid.cell_type.data();
  const float* density = grid.density.data();
  const int64_t step[3] = {1, grid.cell_type.stride(1), grid.cell_type.stride(2)};
  // Whether the cell at offset o, index c, has a wall (solid or the domain's edge) beside it:
  // most have none, and add_wall_contacts is left out for them.
  auto beside_wall = [&](int64_t o, const Index3& c) {
    for (int a = 0; a < 3; ++a)
      if (c[a] == 0 || c[a] == n_cells[a] - 1 || type[o - step[a]] == kSolid ||
          type[o + step[a]] == kSolid)
        return true;
    return false;
  };
  // A row along x at a time, by offset.
  const int length = owned_labelled.hi[0] - owned_labelled.lo[0];
  for (int k = owned_labelled.lo[2]; k < owned_labelled.hi[2]; ++k)
    for (int j = owned_labelled.lo[1]; j < owned_labelled.hi[1]; ++j) {
      const int i0 = owned_labelled.lo[0];
      const int64_t* label = labels.of_cell.data() + labels.of_cell.offset(i0, j, k);
      const int64_t first = grid.cell_type.offset(i0, j, k);
      for (int m = 0; m < length; ++m) {
        if (label[m] < 0) continue;
        double* current = sums.select(label[m]);
        current[kCellCountOffset] += 1;
        current[kMassOffset] += density[first + m] * cell_volume;
        ++rigid_cells;
        if (contact && beside_wall(first + m, {i0 + m, j, k}))
          add_wall_contacts(grid, topo, *contact, sums, i0 + m, j, k, current);
      }
    }
  return rigid_cells;
}

// The nine sums a face of component A adds to, K's entries among row_support(A) and the
// momentum's, kept in registers while consecutive faces belong to one cluster and written
// back when the cluster changes. Each sum takes the same terms in the same order as when
// every face added to the cluster's sums in memory, where each face waited for the last
// one's stores.
template <int A>
class FaceSumsAlong {
 public:
  static constexpr std::array<int, 3> kSupport = row_support(A);
  static constexpr int kSums = 9;

  // Makes `sums` (a cluster's, from ClusterSums::select) the ones added to.
  void select(double* sums) {
    if (sums == target_) return;
    write_back();
    target_ = sums;
    for (int e = 0; e < kSums; ++e) value_[e] = sums[index(e)];
  }
  // A face of mass m with row J_f and velocity u: K += m J_f^T J_f, b += m J_f^T u.
  void add(double mass, const Vec6& row, double u) {
    int e = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = i; j < 3; ++j) value_[e++] += mass * row[kSupport[i]] * row[kSupport[j]];
    for (int i = 0; i < 3; ++i) value_[e++] += mass * row[kSupport[i]] * u;
  }
  void write_back() {
    if (!target_) return;
    for (int e = 0; e < kSums; ++e) target_[index(e)] = value_[e];
  }

 private:
  // Where sum e lies among a cluster's sums: K's entries (support i <= j) row by row, then
  // the momentum's.
  static constexpr int index(int e) {
    int n = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = i; j < 3; ++j, ++n)
        if (n == e) return upper_index(kSupport[i], kSupport[j]);
    return kMomentumOffset + kSupport[e - n];
  }

  double* target_ = nullptr;
  std::array<double, kSums> value_{};
};

// Each cluster face's mass and momentum along component A, as rows of the rigid fit's
// normal equations.
template <int A>
void add_face_sums_along(const Topology& topo, const MacGrid& grid, const ComponentLabels& labels,
                         ClusterSums& sums) {
  const double cell_volume = grid.dx * grid.dx * grid.dx;
  FaceSumsAlong<A> face_sums;
  const uint8_t* type = grid.cell_type.data();
  const float* cell_density = grid.density.data();
  for_each_cluster_face_along(
      A, topo, grid, labels, [&](int i, int j, int k, int64_t label, int64_t lo, int64_t hi) {
        face_sums.select(sums.select(label));  // a rank that owns only massless faces still
                                               // needs the cluster's fit
        double density = 0;
        int fluid = 0;
        for (const int64_t c : {lo, hi})
          if (type[c] == kFluid) {
            density += cell_density[c];
            ++fluid;
          }
        if (fluid == 0) return;
        const double mass = density / fluid * cell_volume;
        face_sums.add(mass, rigid_row(A, sums.offset_in_cells(A, i, j, k)), grid.vel[A](i, j, k));
      });
  face_sums.write_back();
}

void add_face_sums(const Topology& topo, const MacGrid& grid, const ComponentLabels& labels,
                   ClusterSums& sums) {
  add_face_sums_along<0>(topo, grid, labels, sums);
  add_face_sums_along<1>(topo, grid, labels, sums);
  add_face_sums_along<2>(topo, grid, labels, sums);
}

// Each cluster's rigid velocity (v, omega dx) from its sums over every rank, braked by the
// walls it touches; the motions go into stats. Returns the fits by label.
std::map<int64_t, Vec6> fit_clusters(const ClusterSums& sums, const WallContact* contact,
                                     double dx, RigidClusterStats& stats, double& largest) {
  std::map<int64_t, Vec6> fits;
  for (const auto& [label, s] : sums.by_label()) {
    largest = std::max(largest, s[kCellCountOffset]);
    Vec6 q = solve_rigid_fit(s.data());
    if (contact) {
      const Vec6 free = q;
      q = solve_rigid_fit(s.data(), s.data() + kContactStiffnessOffset);
      apply_wall_contact(s.data(), contact->dt, free, q);
    }
    fits[label] = q;
    RigidMotion& m = stats.motions[label];
    m.reference = sums.reference_of(label);
    for (int c = 0; c < 3; ++c) {
      m.velocity[c] = q[c];
      m.angular_velocity[c] = q[3 + c] / dx;
    }
  }
  return fits;
}

// Every cluster face of component A takes its cluster's rigid velocity.
template <int A>
void set_cluster_velocities_along(const Topology& topo, MacGrid& grid,
                                  const ComponentLabels& labels,
                                  const std::map<int64_t, Vec6>& fits, ClusterSums& sums) {
  int64_t current_label = -1;
  const Vec6* fit = nullptr;
  Array3<double>& v = grid.vel[A];
  for_each_cluster_face_along(A, topo, grid, labels,
                              [&](int i, int j, int k, int64_t label, int64_t, int64_t) {
                                if (label != current_label) {
                                  current_label = label;
                                  fit = &fits.at(label);
                                  sums.select(label);
                                }
                                const Vec6 row = rigid_row(A, sums.offset_in_cells(A, i, j, k));
                                double u = 0;
                                for (const int p : row_support(A)) u += row[p] * (*fit)[p];
                                v(i, j, k) = u;
                              });
}

void set_cluster_velocities(const Topology& topo, MacGrid& grid, const ComponentLabels& labels,
                            const std::map<int64_t, Vec6>& fits, ClusterSums& sums) {
  set_cluster_velocities_along<0>(topo, grid, labels, fits, sums);
  set_cluster_velocities_along<1>(topo, grid, labels, fits, sums);
  set_cluster_velocities_along<2>(topo, grid, labels, fits, sums);
}

}  // namespace

RigidClusterStats project_rigid_clusters(const Topology& topo, Halo& halo, MacGrid& grid,
                                         const Array3<uint8_t>& rigid,
                                         const WallContact* contact) {
  ComponentLabels& labels = grid.rigid_clusters;
  label_components(topo, halo, rigid, labels);
  ClusterSums sums(topo, grid);
  const int64_t rigid_cells = add_cell_sums(topo, grid, labels, contact, sums);
  add_face_sums(topo, grid, labels, sums);

  RigidClusterStats stats;
  stats.clusters = sum_per_cluster(topo, kSumsPerCluster, sums.by_label());
  stats.rigid_cells = global_sum(topo, rigid_cells);
  double largest = 0;
  const std::map<int64_t, Vec6> fits = fit_clusters(sums, contact, grid.dx, stats, largest);
  stats.largest_cluster_cells = int64_t(global_max(topo, largest));

  set_cluster_velocities(topo, grid, labels, fits, sums);
  halo.fill<double>({&grid.vel[0], &grid.vel[1], &grid.vel[2]});
  return stats;
}

}  // namespace dunesim

// Connected-component labelling across ranks and the momentum-conserving rigid fit of
// rigid sand clusters (thesis section 2.3.4), on 1, 2 and 4 ranks.
#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "decomposition/connected_components.hpp"
#include "decomposition/reductions.hpp"
#include "src/sand/rigid_clusters.hpp"
#include "tests/world_ranks.hpp"

using namespace dunesim;

namespace {

using CellPredicate = std::function<bool(int, int, int)>;
using Vec3d = std::array<double, 3>;

// A reproducible number in [0, 1) for a grid entry, the same on every rank count.
double unit_noise(int seed, int a, int i, int j, int k) {
  uint64_t x = uint64_t(seed) * 0x9e3779b97f4a7c15ULL;
  for (int v : {a, i, j, k})
    x = (x ^ uint64_t(v + 1000)) * 0xff51afd7ed558ccdULL + 0x2545f4914f6cdd1dULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return double(x >> 11) * 0x1.0p-53;
}

// The default layout, and one slab per rank along x so that a bar along x crosses them all.
std::vector<std::unique_ptr<Topology>> layouts(MPI_Comm comm, Index3 cells, int ghost) {
  std::vector<std::unique_ptr<Topology>> t;
  t.push_back(std::make_unique<Topology>(comm, cells, ghost));
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  std::array<std::vector<int>, 3> starts{std::vector<int>{}, {0, cells[1]}, {0, cells[2]}};
  for (int b = 0; b <= ranks; ++b) starts[0].push_back(cells[0] * b / ranks);
  t.push_back(std::make_unique<Topology>(comm, cells, ghost, starts));
  return t;
}

// Serial reference: smallest global index of each 6-connected component, -1 outside.
std::vector<int64_t> serial_labels(Index3 n, const CellPredicate& marked) {
  auto index = [&](int i, int j, int k) { return i + int64_t(n[0]) * (j + int64_t(n[1]) * k); };
  std::vector<int64_t> label(size_t(n[0]) * n[1] * n[2], -1);
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        if (!marked(i, j, k) || label[index(i, j, k)] >= 0) continue;
        // Cells are visited in index order, so the first cell of a component is its smallest.
        const int64_t root = index(i, j, k);
        std::deque<Index3> queue{{i, j, k}};
        label[root] = root;
        while (!queue.empty()) {
          Index3 c = queue.front();
          queue.pop_front();
          for (int a = 0; a < 3; ++a)
            for (int step : {-1, 1}) {
              Index3 m = c;
              m[a] += step;
              if (m[a] < 0 || m[a] >= n[a] || !marked(m[0], m[1], m[2])) continue;
              int64_t& l = label[index(m[0], m[1], m[2])];
              if (l >= 0) continue;
              l = root;
              queue.push_back(m);
            }
        }
      }
  return label;
}

Array3<uint8_t> mask_on(const Topology& topo, const CellPredicate& marked) {
  Array3<uint8_t> mask(topo.local(Stagger::Cell), Stagger::Cell, 0);
  const Box domain = topo.global(Stagger::Cell);
  for_each_index(mask.box(), [&](int i, int j, int k) {
    mask(i, j, k) = domain.contains(i, j, k) && marked(i, j, k);
  });
  return mask;
}

void expect_labels_match_serial(const Topology& topo, const CellPredicate& marked) {
  Halo halo(topo);
  ComponentLabels labels;
  label_components(topo, halo, mask_on(topo, marked), labels);
  const Index3 n = topo.global_cells();
  const std::vector<int64_t> reference = serial_labels(n, marked);
  const Box domain = topo.global(Stagger::Cell);
  ASSERT_TRUE(labels.of_cell.box() == topo.local(Stagger::Cell));
  // Owned cells and ghosts alike: the labels come back halo-consistent.
  for_each_index(labels.of_cell.box(), [&](int i, int j, int k) {
    int64_t expected =
        domain.contains(i, j, k) ? reference[i + n[0] * (j + int64_t(n[1]) * k)] : -1;
    ASSERT_EQ(labels(i, j, k), expected) << "cell " << i << "," << j << "," << k;
  });
}

// Cells in a box [lo, hi).
bool in_box(int i, int j, int k, Index3 lo, Index3 hi) { return Box{lo, hi}.contains(i, j, k); }

// ---- the rigid-fit scene: a 16x12x10 box of fluid cells with four rigid clusters ----

const Index3 kCells{16, 12, 10};
constexpr double kDx = 0.05;

// An irregular block crossing the ranks' cuts in every default layout, with a solid cell
// inside; a single cell; a one-cell-thick bar along y reaching the wall; a small plate.
bool scene_solid(int i, int j, int k) { return i == 7 && j == 3 && k == 4; }
bool scene_rigid(int i, int j, int k) {
  if (scene_solid(i, j, k)) return false;
  return in_box(i, j, k, {1, 1, 1}, {15, 6, 9}) || in_box(i, j, k, {3, 6, 4}, {5, 11, 6}) ||
         (i == 12 && j == 9 && k == 7) || in_box(i, j, k, {13, 7, 2}, {14, 12, 3}) ||
         in_box(i, j, k, {8, 8, 7}, {10, 10, 8});
}

// Fluid everywhere in the domain except `solid`; walls outside. Densities vary so the
// face masses differ; velocities come from `velocity` on every local face, ghosts included.
void build_grid(const Topology& topo, MacGrid& g, const CellPredicate& solid,
                const std::function<double(int, int, int, int)>& velocity) {
  g.allocate(topo, kDx);
  const Box domain = topo.global(Stagger::Cell);
  for_each_index(g.cell_type.box(), [&](int i, int j, int k) {
    bool wall = !domain.contains(i, j, k) || solid(i, j, k);
    g.cell_type(i, j, k) = wall ? kSolid : kFluid;
    g.density(i, j, k) = 1400.0 + 600.0 * unit_noise(1, 0, i, j, k);
  });
  for (int a = 0; a < 3; ++a)
    for_each_index(g.vel[a].box(),
                   [&](int i, int j, int k) { g.vel[a](i, j, k) = velocity(a, i, j, k); });
}

double random_velocity(int a, int i, int j, int k) {
  return 2.0 * unit_noise(2, a, i, j, k) - 1.0;
}

// Face mass and cluster (-1: none) of an owned face, by the definition the fit uses:
// a rigid cell on one side, both sides in the domain and not solid.
struct FaceInfo {
  int64_t cluster = -1;
  double mass = 0;
};
FaceInfo face_info(const MacGrid& g, const std::vector<int64_t>& reference, int a, int i, int j,
                   int k) {
  const Index3 n = kCells;
  Index3 lo = lower_cell(a, i, j, k), hi{i, j, k};
  FaceInfo f;
  for (const Index3& c : {lo, hi}) {
    if (c[0] < 0 || c[1] < 0 || c[2] < 0 || c[0] >= n[0] || c[1] >= n[1] || c[2] >= n[2])
      return f;
    if (g.cell_type(c[0], c[1], c[2]) == kSolid) return f;
  }
  for (const Index3& c : {lo, hi}) {
    f.cluster = std::max(f.cluster, reference[c[0] + n[0] * (c[1] + int64_t(n[1]) * c[2])]);
    f.mass += 0.5 * g.density(c[0], c[1], c[2]) * kDx * kDx * kDx;
  }
  return f;
}

// Calls f(a, i, j, k) for every face this rank owns, wall layers included.
template <class F>
void for_each_owned_face(const Topology& topo, F&& f) {
  for (int a = 0; a < 3; ++a)
    for_each_index(topo.owned(face_stagger(a)), [&](int i, int j, int k) { f(a, i, j, k); });
}

// Per cluster (indexed by its position in `clusters`): linear momentum, angular momentum
// about `pivot`, and the sums of their magnitudes' contributions as scales, over all ranks.
struct Momenta {
  std::vector<Vec3d> linear, angular;
  std::vector<double> linear_scale, angular_scale;
};
Momenta cluster_momenta(const Topology& topo, const MacGrid& g,
                        const std::vector<int64_t>& reference,
                        const std::vector<int64_t>& clusters, Vec3d pivot) {
  const size_t count = clusters.size();
  std::vector<double> sums(count * 8, 0.0);
  for_each_owned_face(topo, [&](int a, int i, int j, int k) {
    FaceInfo f = face_info(g, reference, a, i, j, k);
    if (f.cluster < 0) return;
    size_t c = std::lower_bound(clusters.begin(), clusters.end(), f.cluster) - clusters.begin();
    Vec3d x = g.face_position(a, i, j, k);
    Vec3d r{x[0] - pivot[0], x[1] - pivot[1], x[2] - pivot[2]};
    Vec3d p{0, 0, 0};
    p[a] = f.mass * g.vel[a](i, j, k);
    double* s = &sums[8 * c];
    for (int b = 0; b < 3; ++b) s[b] += p[b];
    s[3] += r[1] * p[2] - r[2] * p[1];
    s[4] += r[2] * p[0] - r[0] * p[2];
    s[5] += r[0] * p[1] - r[1] * p[0];
    s[6] += std::abs(p[a]);
    s[7] += std::abs(p[a]) * std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
  });
  global_sum_in_place(topo, sums.data(), int(sums.size()));
  Momenta m;
  for (size_t c = 0; c < count; ++c) {
    const double* s = &sums[8 * c];
    m.linear.push_back({s[0], s[1], s[2]});
    m.angular.push_back({s[3], s[4], s[5]});
    m.linear_scale.push_back(s[6]);
    m.angular_scale.push_back(s[7]);
  }
  return m;
}

std::vector<int64_t> cluster_list(const std::vector<int64_t>& reference) {
  std::vector<int64_t> c;
  for (size_t n = 0; n < reference.size(); ++n)
    if (reference[n] == int64_t(n)) c.push_back(int64_t(n));
  return c;
}

}  // namespace

TEST(ConnectedComponents, ShapesMatchSerialReference) {
  const Index3 n{16, 10, 8};
  auto shapes = [](int i, int j, int k) {
    bool bar = j == 1 && k == 1;  // spans the whole domain along x
    bool ell = (k == 4 && j == 4 && i >= 2 && i < 9) || (k == 4 && i == 2 && j >= 4 && j < 9);
    bool singles = (i == 14 && j == 8 && k == 6) || (i == 0 && j == 0 && k == 7) ||
                   (i == 15 && j == 9 && k == 0) || (i == 6 && j == 6 && k == 6);
    // Blobs that touch another only along an edge or at a corner stay separate.
    bool blob_a = in_box(i, j, k, {9, 5, 5}, {11, 7, 7});
    bool blob_edge = in_box(i, j, k, {11, 7, 5}, {13, 9, 7});
    bool blob_corner = in_box(i, j, k, {11, 3, 7}, {13, 5, 8});
    return bar || ell || singles || blob_a || blob_edge || blob_corner;
  };
  const std::vector<int64_t> reference = serial_labels(n, shapes);
  // The reference itself tells the diagonal blobs apart and joins each bar.
  EXPECT_NE(reference[9 + 16 * (5 + 10 * 5)], reference[11 + 16 * (7 + 10 * 5)]);
  EXPECT_NE(reference[9 + 16 * (5 + 10 * 5)], reference[11 + 16 * (3 + 10 * 7)]);
  EXPECT_EQ(reference[15 + 16 * (1 + 10 * 1)], 0 + 16 * (1 + 10 * 1));
  for (int ghost : {1, 2})
    for (auto& topo : layouts(MPI_COMM_WORLD, n, ghost)) {
      SCOPED_TRACE("ghost " + std::to_string(ghost) + ", blocks " +
                   std::to_string(topo->dims()[0]) + "x" + std::to_string(topo->dims()[1]) + "x" +
                   std::to_string(topo->dims()[2]));
      expect_labels_match_serial(*topo, shapes);
    }
}

// Near the site-percolation threshold (0.31 for the cubic lattice) clusters snake through
// every block; denser and sparser masks give one big cluster and many small ones.
TEST(ConnectedComponents, RandomMasksMatchSerialReference) {
  const Index3 n{14, 12, 10};
  for (double fill : {0.2, 0.31, 0.45, 0.7}) {
    auto marked = [fill](int i, int j, int k) { return unit_noise(3, 0, i, j, k) < fill; };
    for (auto& topo : layouts(MPI_COMM_WORLD, n, 1)) {
      SCOPED_TRACE("fill " + std::to_string(fill));
      expect_labels_match_serial(*topo, marked);
    }
  }
}

TEST(ConnectedComponents, ClusterSumsAddEveryRanksPartsAndCountClusters) {
  Topology topo(MPI_COMM_WORLD, {8, 8, 8}, 1);
  const int r = topo.rank(), size = topo.size();
  // Cluster 5 on every rank, cluster 100 + r on rank r only, cluster 7 on rank 0 only.
  std::map<int64_t, std::vector<double>> sums;
  sums[5] = {1.0, double(r)};
  sums[100 + r] = {2.0, 3.0};
  if (r == 0) sums[7] = {4.0, 5.0};
  const int64_t clusters = sum_per_cluster(topo, 2, sums);
  EXPECT_EQ(clusters, size + 2);
  EXPECT_EQ(sums.size(), size_t(r == 0 ? 3 : 2));
  EXPECT_DOUBLE_EQ(sums[5][0], size);
  EXPECT_DOUBLE_EQ(sums[5][1], size * (size - 1) / 2.0);
  EXPECT_DOUBLE_EQ(sums[100 + r][0], 2.0);
  EXPECT_DOUBLE_EQ(sums[100 + r][1], 3.0);
  if (r == 0) EXPECT_DOUBLE_EQ(sums[7][1], 5.0);
}

// Every rank solves the whole scene alone on MPI_COMM_SELF; the distributed fit must give
// the same motions and face velocities whatever the layout.
TEST(RigidClusters, DistributedFitMatchesOneRank) {
  SKIP_IN_A_ONE_RANK_JOB();
  Topology serial_topo(MPI_COMM_SELF, kCells, 2);
  Halo serial_halo(serial_topo);
  MacGrid serial;
  build_grid(serial_topo, serial, scene_solid, random_velocity);
  RigidClusterStats expected =
      project_rigid_clusters(serial_topo, serial_halo, serial, mask_on(serial_topo, scene_rigid));
  EXPECT_EQ(expected.clusters, 4);
  EXPECT_EQ(expected.largest_cluster_cells, 14 * 5 * 8 - 1 + 2 * 5 * 2);
  EXPECT_EQ(expected.rigid_cells, 14 * 5 * 8 - 1 + 2 * 5 * 2 + 1 + 5 + 4);

  for (auto& topo : layouts(MPI_COMM_WORLD, kCells, 2)) {
    Halo halo(*topo);
    MacGrid g;
    build_grid(*topo, g, scene_solid, random_velocity);
    RigidClusterStats stats = project_rigid_clusters(*topo, halo, g, mask_on(*topo, scene_rigid));
    EXPECT_EQ(stats.clusters, expected.clusters);
    EXPECT_EQ(stats.largest_cluster_cells, expected.largest_cluster_cells);
    EXPECT_EQ(stats.rigid_cells, expected.rigid_cells);
    // The big block reaches every rank.
    EXPECT_EQ(stats.motions.count(1 + 16 * (1 + 12 * 1)), 1u);
    for (const auto& [label, m] : stats.motions) {
      ASSERT_EQ(expected.motions.count(label), 1u) << "label " << label;
      const RigidMotion& e = expected.motions.at(label);
      for (int c = 0; c < 3; ++c) {
        EXPECT_NEAR(m.velocity[c], e.velocity[c], 1e-12) << "label " << label;
        EXPECT_NEAR(m.angular_velocity[c], e.angular_velocity[c], 1e-12) << "label " << label;
        EXPECT_EQ(m.reference[c], e.reference[c]);
      }
    }
    // Every local entry, ghosts included (the velocity halos are filled).
    for (int a = 0; a < 3; ++a)
      for_each_index(g.vel[a].box(), [&](int i, int j, int k) {
        ASSERT_NEAR(g.vel[a](i, j, k), serial.vel[a](i, j, k), 1e-12)
            << "face " << a << ":" << i << "," << j << "," << k;
      });
  }
}

TEST(RigidClusters, ConservesLinearAndAngularMomentumOfEachCluster) {
  const std::vector<int64_t> reference = serial_labels(kCells, scene_rigid);
  const std::vector<int64_t> clusters = cluster_list(reference);
  const Vec3d pivot{0.31, 0.27, 0.19};
  for (auto& topo : layouts(MPI_COMM_WORLD, kCells, 1)) {
    Halo halo(*topo);
    MacGrid g;
    build_grid(*topo, g, scene_solid, random_velocity);
    Momenta before = cluster_momenta(*topo, g, reference, clusters, pivot);
    project_rigid_clusters(*topo, halo, g, mask_on(*topo, scene_rigid));
    Momenta after = cluster_momenta(*topo, g, reference, clusters, pivot);
    bool moved = false;
    for (size_t c = 0; c < clusters.size(); ++c)
      for (int b = 0; b < 3; ++b) {
        EXPECT_NEAR(after.linear[c][b], before.linear[c][b], 1e-12 * before.linear_scale[c])
            << "cluster " << clusters[c] << " component " << b;
        EXPECT_NEAR(after.angular[c][b], before.angular[c][b], 1e-12 * before.angular_scale[c])
            << "cluster " << clusters[c] << " component " << b;
      }
    // Faces outside the clusters are untouched; faces inside were really projected.
    for_each_owned_face(*topo, [&](int a, int i, int j, int k) {
      const double u = g.vel[a](i, j, k), original = random_velocity(a, i, j, k);
      if (face_info(g, reference, a, i, j, k).cluster < 0)
        ASSERT_EQ(u, original);
      else
        moved = moved || std::abs(u - original) > 1e-3;
    });
    EXPECT_TRUE(any_rank(*topo, moved));
  }
}

TEST(RigidClusters, RigidMotionIsLeftUnchanged) {
  const Vec3d v{0.3, -0.2, 0.5}, w{0.7, -1.1, 0.4}, origin{0.13, 0.41, 0.2};
  auto rigid_velocity = [&](int a, int i, int j, int k) {
    Vec3d x{(i + 0.5) * kDx, (j + 0.5) * kDx, (k + 0.5) * kDx};
    x[a] -= 0.5 * kDx;
    Vec3d r{x[0] - origin[0], x[1] - origin[1], x[2] - origin[2]};
    Vec3d wr{w[1] * r[2] - w[2] * r[1], w[2] * r[0] - w[0] * r[2], w[0] * r[1] - w[1] * r[0]};
    return v[a] + wr[a];
  };
  const std::vector<int64_t> reference = serial_labels(kCells, scene_rigid);
  for (auto& topo : layouts(MPI_COMM_WORLD, kCells, 1)) {
    Halo halo(*topo);
    MacGrid g;
    build_grid(*topo, g, scene_solid, rigid_velocity);
    RigidClusterStats stats = project_rigid_clusters(*topo, halo, g, mask_on(*topo, scene_rigid));
    for (int a = 0; a < 3; ++a)
      for_each_index(g.vel[a].box(), [&](int i, int j, int k) {
        ASSERT_NEAR(g.vel[a](i, j, k), rigid_velocity(a, i, j, k), 1e-12)
            << "face " << a << ":" << i << "," << j << "," << k;
      });
    // The block's fit recovers the motion itself, moved to its reference point.
    const RigidMotion& block = stats.motions.at(1 + 16 * (1 + 12 * 1));
    Vec3d r{block.reference[0] - origin[0], block.reference[1] - origin[1],
            block.reference[2] - origin[2]};
    Vec3d wr{w[1] * r[2] - w[2] * r[1], w[2] * r[0] - w[0] * r[2], w[0] * r[1] - w[1] * r[0]};
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(block.angular_velocity[c], w[c], 1e-10);
      EXPECT_NEAR(block.velocity[c], v[c] + wr[c], 1e-12);
    }
  }
}

// A lone cell has no rotation its faces could show: it only translates, each velocity
// component becoming the mass-weighted mean of the cell's two faces along it. One cell sits
// on a cut between blocks, one against the wall (its wall face is not part of it).
TEST(RigidClusters, SingleCellClustersTranslateWithoutNaN) {
  auto rigid = [](int i, int j, int k) {
    return (i == 7 && j == 5 && k == 4) || (i == 0 && j == 9 && k == 8);
  };
  auto no_solid = [](int, int, int) { return false; };
  const std::vector<int64_t> reference = serial_labels(kCells, rigid);
  const std::vector<int64_t> clusters = cluster_list(reference);
  ASSERT_EQ(clusters.size(), 2u);
  for (auto& topo : layouts(MPI_COMM_WORLD, kCells, 1)) {
    Halo halo(*topo);
    MacGrid g;
    build_grid(*topo, g, no_solid, random_velocity);
    Momenta before = cluster_momenta(*topo, g, reference, clusters, {0, 0, 0});
    RigidClusterStats stats = project_rigid_clusters(*topo, halo, g, mask_on(*topo, rigid));
    Momenta after = cluster_momenta(*topo, g, reference, clusters, {0, 0, 0});
    EXPECT_EQ(stats.clusters, 2);
    EXPECT_EQ(stats.largest_cluster_cells, 1);
    for (const auto& [label, m] : stats.motions)
      for (int c = 0; c < 3; ++c) {
        EXPECT_TRUE(std::isfinite(m.velocity[c]));
        EXPECT_EQ(m.angular_velocity[c], 0.0);
      }
    for (size_t c = 0; c < clusters.size(); ++c)
      for (int b = 0; b < 3; ++b)
        EXPECT_NEAR(after.linear[c][b], before.linear[c][b], 1e-12 * before.linear_scale[c]);
    for (int a = 0; a < 3; ++a)
      for_each_index(g.vel[a].box(),
                     [&](int i, int j, int k) { ASSERT_TRUE(std::isfinite(g.vel[a](i, j, k))); });
    // Opposite faces of the inner cell now carry one velocity.
    const Box faces = g.vel[0].box();
    if (faces.contains(7, 5, 4) && faces.contains(8, 5, 4))
      EXPECT_EQ(g.vel[0](7, 5, 4), g.vel[0](8, 5, 4));
  }
}

// The Zhu & Bridson particle surface (postproc/surface/): exact for one particle; flat over a
// flat layer of particles; a ball of particles gives a closed sphere of the right radius; the
// smoothing pass only lowers phi, and only near the surface; blocks that share a plane of
// samples (the ranks of dunesim_surface) put the same vertices on it.
#include <gtest/gtest.h>

#include <vtkCellArray.h>
#include <vtkDataArray.h>
#include <vtkPointData.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "postproc/surface/implicit_surface.hpp"
#include "postproc/surface/phi_smoothing.hpp"
#include "postproc/surface/sampled_field.hpp"
#include "postproc/surface/surface_mesh.hpp"

using namespace dunesim;

namespace {

constexpr double kSpacing = 0.01;         // particle spacing h
constexpr double kRadius = kSpacing / 2;  // each particle's radius
constexpr double kKernel = 2 * kSpacing;  // R
constexpr double kJitter = 0.005;         // lattice positions move by up to +-kJitter/2 h
const double kPi = std::acos(-1.0);

ParticleSurface surface_of(const std::vector<Vec3>& particles) {
  return ParticleSurface(particles, std::vector<double>(particles.size(), kRadius), kKernel);
}

// Lattice positions (i + 1/2, j + 1/2, k + 1/2) h, each coordinate moved by up to
// +-kJitter/2 h, for the lattice points that `keep` accepts.
template <class Keep>
std::vector<Vec3> jittered_lattice(int lo, int hi, Keep&& keep) {
  std::mt19937 random(12345);
  std::uniform_real_distribution<double> jitter(-kJitter / 2, kJitter / 2);
  std::vector<Vec3> particles;
  for (int i = lo; i < hi; ++i)
    for (int j = lo; j < hi; ++j)
      for (int k = lo; k < hi; ++k) {
        Vec3 x{(i + 0.5) * kSpacing, (j + 0.5) * kSpacing, (k + 0.5) * kSpacing};
        if (!keep(x)) continue;
        for (double& c : x) c += jitter(random) * kSpacing;
        particles.push_back(x);
      }
  return particles;
}

double radius_of(const double x[3]) { return std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]); }

// Volume enclosed by a closed triangle mesh (divergence theorem: signed tetrahedra from the
// origin), positive when the triangles face outward.
double enclosed_volume(vtkPolyData* mesh) {
  double volume = 0;
  auto cells = mesh->GetPolys();
  cells->InitTraversal();
  vtkIdType n_ids;
  const vtkIdType* ids;
  while (cells->GetNextCell(n_ids, ids)) {
    double v[3][3];
    for (int c = 0; c < 3; ++c) mesh->GetPoint(ids[c], v[c]);
    volume += (v[0][0] * (v[1][1] * v[2][2] - v[1][2] * v[2][1]) -
               v[0][1] * (v[1][0] * v[2][2] - v[1][2] * v[2][0]) +
               v[0][2] * (v[1][0] * v[2][1] - v[1][1] * v[2][0])) /
              6;
  }
  return volume;
}

// Edges not shared by exactly two triangles (0 for a closed surface).
int open_edges(vtkPolyData* mesh) {
  std::map<std::pair<vtkIdType, vtkIdType>, int> edges;
  auto cells = mesh->GetPolys();
  cells->InitTraversal();
  vtkIdType n_ids;
  const vtkIdType* ids;
  while (cells->GetNextCell(n_ids, ids))
    for (int c = 0; c < n_ids; ++c) {
      const vtkIdType a = ids[c], b = ids[(c + 1) % n_ids];
      ++edges[{std::min(a, b), std::max(a, b)}];
    }
  int open = 0;
  for (const auto& [edge, faces] : edges) open += faces != 2;
  return open;
}

}  // namespace

TEST(ParticleSurface, OneParticleIsItsSphere) {
  const Vec3 centre{0.3, -0.2, 0.05};
  ParticleSurface surface({centre}, {kRadius}, kKernel);
  for (const Vec3& x : {Vec3{0.3, -0.2, 0.05}, Vec3{0.31, -0.2, 0.05}, Vec3{0.29, -0.21, 0.06},
                        Vec3{0.3, -0.2 + 0.015, 0.05 - 0.01}}) {
    const double exact = std::sqrt((x[0] - centre[0]) * (x[0] - centre[0]) +
                                   (x[1] - centre[1]) * (x[1] - centre[1]) +
                                   (x[2] - centre[2]) * (x[2] - centre[2])) -
                         kRadius;
    EXPECT_NEAR(surface.phi(x), exact, 1e-15);
  }
  EXPECT_EQ(surface.phi({1.0, 1.0, 1.0}), kKernel);  // no particle within R: outside
}

namespace {

// A slab of 16 x 16 x 6 particles, its top layer at z = 5.5 h: the particles fill the
// half-space z < 6 h (each stands for an h^3 cube) as far as the middle of the slab can tell.
constexpr int kSlabSide = 16, kSlabLayers = 6;
constexpr double kSlabFace = kSlabLayers * kSpacing;

std::vector<Vec3> slab_of_particles() {
  return jittered_lattice(0, kSlabSide, [](const Vec3& x) {
    return x[2] < kSlabFace && x[0] < kSlabSide * kSpacing && x[1] < kSlabSide * kSpacing;
  });
}

// The slab's top surface away from its edges: the mean height of the mesh's vertices over
// the middle 6 h x 6 h and their largest deviation from it.
struct TopSurface {
  double mean = 0, bump = 0;
};

TopSurface top_surface(vtkPolyData* mesh) {
  std::vector<double> heights;
  for (vtkIdType p = 0; p < mesh->GetNumberOfPoints(); ++p) {
    double x[3];
    mesh->GetPoint(p, x);
    const bool middle = std::abs(x[0] / kSpacing - 8) < 3 && std::abs(x[1] / kSpacing - 8) < 3;
    if (middle && x[2] > kSlabFace / 2) heights.push_back(x[2]);
  }
  TopSurface top;
  if (heights.empty()) return top;
  for (double z : heights) top.mean += z / double(heights.size());
  for (double z : heights) top.bump = std::max(top.bump, std::abs(z - top.mean));
  return top;
}

// The slab's field on samples h/2 apart, phi or the blobby field.
SampledField slab_field(const ParticleSurface& surface, bool blobby) {
  const double margin = 3 * kSpacing;
  const SampledField phi = sample_surface(surface, {-margin, -margin, -margin},
                                          {kSlabSide * kSpacing + margin,
                                           kSlabSide * kSpacing + margin, kSlabFace + margin},
                                          kSpacing / 2);
  if (!blobby) return phi;
  // Threshold k(r / R): one lone particle's blob is its sphere of radius r.
  return sample_blobby(surface, phi, surface_kernel(kRadius / kKernel));
}

// How far the Zhu & Bridson surface of a flat face lies inside the particles' volume (the
// face z = 6 h), sampled as the sphere test samples. The known bias: the second layer,
// 1.4 h below a point at the surface, is within R and pulls x_bar about 0.06 h down.
double flat_face_bias() {
  const TopSurface top =
      top_surface(zero_level_mesh(slab_field(surface_of(slab_of_particles()), false)));
  return kSlabFace - top.mean;
}

}  // namespace

// A flat layer of particles gives a flat surface: the vertices over the middle of the slab
// lie within 1% of h of their mean height, which is within 0.1 h of the particles' face.
// The blobby field's numbers are recorded beside them; its surface lies far outside the face.
TEST(ParticleSurface, FlatLayerGivesAFlatSurface) {
  const ParticleSurface surface = surface_of(slab_of_particles());
  const TopSurface flat = top_surface(zero_level_mesh(slab_field(surface, false)));
  const TopSurface blobby = top_surface(zero_level_mesh(slab_field(surface, true)));
  RecordProperty("zhu_bridson_bump_over_h", std::to_string(flat.bump / kSpacing));
  RecordProperty("blobby_bump_over_h", std::to_string(blobby.bump / kSpacing));
  RecordProperty("zhu_bridson_offset_over_h", std::to_string((flat.mean - kSlabFace) / kSpacing));
  RecordProperty("blobby_offset_over_h", std::to_string((blobby.mean - kSlabFace) / kSpacing));
  EXPECT_LT(flat.bump, 0.01 * kSpacing);
  EXPECT_NEAR(flat.mean, kSlabFace, 0.1 * kSpacing);
  EXPECT_GT(blobby.mean - kSlabFace, 0.3 * kSpacing);
}

namespace {

// Particles on the lattice (jittered) inside a ball of radius `radius_in_h` h at the origin.
std::vector<Vec3> ball_of_particles(double radius_in_h) {
  const int reach = int(radius_in_h) + 1;
  return jittered_lattice(-reach, reach, [&](const Vec3& x) {
    return x[0] * x[0] + x[1] * x[1] + x[2] * x[2] < std::pow(radius_in_h * kSpacing, 2);
  });
}

vtkSmartPointer<vtkPolyData> ball_mesh(const std::vector<Vec3>& particles, double radius_in_h) {
  const double reach = (radius_in_h + 1) * kSpacing + 2 * kKernel;
  const SampledField field = sample_surface(surface_of(particles), {-reach, -reach, -reach},
                                            {reach, reach, reach}, kSpacing / 2);
  return zero_level_mesh(field);
}

}  // namespace

// The ball's surface through flying edges on a grid of half the spacing: closed (every edge
// in two triangles), its normals outward and of unit length, and the volume it encloses that
// of a ball flat_face_bias() inside the particles' radius of equal volume (one h^3 each; see
// BallGivesASphereOfTheRightRadius), within the volume of a radius error of 0.04 h, 2%
// here: the 10 h ball's error bound, 0.02 h, grows as 1 / r with the curvature's effect on
// x_bar, to 0.033 h at 6 h. A surface on the wrong side of the bias (0.07 h) or a kernel of
// the wrong size (h changes the bias by about its share) falls outside.
TEST(SurfaceMesh, BallGivesAClosedSurfaceOfItsVolume) {
  const std::vector<Vec3> particles = ball_of_particles(6);
  vtkSmartPointer<vtkPolyData> mesh = ball_mesh(particles, 6);
  ASSERT_GT(mesh->GetNumberOfPolys(), 100);
  vtkDataArray* normals = mesh->GetPointData()->GetNormals();
  ASSERT_NE(normals, nullptr);
  int inward_normals = 0, not_unit = 0;
  for (vtkIdType p = 0; p < mesh->GetNumberOfPoints(); ++p) {
    double x[3], n[3];
    mesh->GetPoint(p, x);
    normals->GetTuple(p, n);
    if (x[0] * n[0] + x[1] * n[1] + x[2] * n[2] <= 0) ++inward_normals;
    if (std::abs(radius_of(n) - 1) > 1e-9) ++not_unit;
  }
  const double volume = enclosed_volume(mesh);
  const double particle_volume = double(particles.size()) * std::pow(kSpacing, 3);
  const double radius = std::cbrt(3 * particle_volume / (4 * kPi)) - flat_face_bias();
  const double expected = 4 * kPi / 3 * std::pow(radius, 3);
  RecordProperty("enclosed_over_particle_volume", std::to_string(volume / particle_volume));
  RecordProperty("enclosed_over_expected", std::to_string(volume / expected));
  EXPECT_EQ(open_edges(mesh), 0);
  EXPECT_EQ(inward_normals, 0);
  EXPECT_EQ(not_unit, 0);
  // > 0: the triangles face out.
  EXPECT_NEAR(volume, expected, 3 * 0.04 * kSpacing / radius * expected);
}

// A ball of particles of radius 10 h gives a sphere of the right radius. The particles stand
// for N cubes of side h, a ball of the radius of equal volume, (3 N h^3 / 4 pi)^(1/3); a flat
// face of particles gives a surface flat_face_bias() inside their volume (about 0.07 h),
// so the sphere's radius should be the radius of equal volume less that bias. The sphere's
// radius is measured as the radius of the volume it encloses; the error must stay within 2%
// of h (what is left is the effect of the curvature on x_bar and the lattice's roughness).
TEST(SurfaceMesh, BallGivesASphereOfTheRightRadius) {
  const std::vector<Vec3> particles = ball_of_particles(10);
  const double equal_volume_radius =
      std::cbrt(3 * double(particles.size()) * std::pow(kSpacing, 3) / (4 * kPi));
  const double expected = equal_volume_radius - flat_face_bias();
  const double measured = std::cbrt(3 * enclosed_volume(ball_mesh(particles, 10)) / (4 * kPi));
  RecordProperty("radius_error_over_h", std::to_string((measured - expected) / kSpacing));
  RecordProperty("flat_face_bias_over_h", std::to_string(flat_face_bias() / kSpacing));
  EXPECT_NEAR(measured, expected, 0.02 * kSpacing);
}

namespace {

// phi of the plane z = 0.3 on samples 1/8 apart (the plane lies between samples).
SampledField plane_field() {
  SampleBlock block;
  block.spacing = 0.125;
  block.samples = {8, 8, 12};
  SampledField field;
  static_cast<SampleBlock&>(field) = block;
  for (int k = 0; k < 12; ++k)
    for (int j = 0; j < 8; ++j)
      for (int i = 0; i < 8; ++i) field.phi.push_back(field.position(i, j, k)[2] - 0.3);
  return field;
}

}  // namespace

// Smoothing may only lower phi: a linear phi (a flat surface) equals the mean of its
// neighbours and a convex one (a ball) lies below it, so neither changes.
TEST(PhiSmoothing, LeavesAPlaneAndABallAlone) {
  SampledField plane = plane_field();
  const SampledField plane_before = plane;
  smooth_near_surface(plane, {3, 2});
  for (size_t n = 0; n < plane.phi.size(); ++n)
    EXPECT_NEAR(plane.phi[n], plane_before.phi[n], 1e-15) << "sample " << n;

  SampledField ball = plane_field();
  for (int k = 0; k < ball.samples[2]; ++k)
    for (int j = 0; j < ball.samples[1]; ++j)
      for (int i = 0; i < ball.samples[0]; ++i)
        ball.phi[ball.index(i, j, k)] = radius_of(ball.position(i, j, k).data()) - 0.6;
  const SampledField ball_before = ball;
  smooth_near_surface(ball, {3, 2});
  EXPECT_EQ(ball.phi, ball_before.phi);
}

// A pit in a flat surface (one sample just inside raised above zero) is filled; no sample
// rises; a sample beyond the band (|phi| >= 2 spacings) keeps its bump; 0 iterations is off.
TEST(PhiSmoothing, FillsAPitOnlyNearTheSurface) {
  SampledField field = plane_field();
  const SampledField plane = field;
  const size_t pit = field.index(4, 4, 2);  // phi = -0.05 (z = 0.25)
  const size_t far = field.index(4, 4, 9);  // phi = 0.825, beyond the band of 0.25
  field.phi[pit] = 0.05;
  field.phi[far] += 0.1;
  const SampledField before = field;

  SampledField unsmoothed = field;
  smooth_near_surface(unsmoothed, {0, 2});
  EXPECT_EQ(unsmoothed.phi, before.phi);

  smooth_near_surface(field, {3, 2});
  int rose = 0;
  for (size_t n = 0; n < field.phi.size(); ++n) rose += field.phi[n] > before.phi[n];
  EXPECT_EQ(rose, 0);
  EXPECT_NEAR(field.phi[pit], plane.phi[pit], 1e-12);
  EXPECT_EQ(field.phi[far], before.phi[far]);
}

namespace {

// The samples of `whole` from x index `first` to `last` with `ghosts` more on each side
// (as far as `whole` reaches), as dunesim_surface's ranks sample their slabs.
SampledField x_slab(const SampledField& whole, int first, int last, int ghosts) {
  const int lo = std::max(first - ghosts, 0), hi = std::min(last + ghosts, whole.samples[0] - 1);
  SampledField slab;
  static_cast<SampleBlock&>(slab) = whole;
  slab.first[0] += lo;
  slab.samples[0] = hi - lo + 1;
  for (int k = 0; k < whole.samples[2]; ++k)
    for (int j = 0; j < whole.samples[1]; ++j)
      for (int i = lo; i <= hi; ++i) slab.phi.push_back(whole.phi[whole.index(i, j, k)]);
  return slab;
}

std::set<std::array<double, 3>> vertices_of(vtkPolyData* mesh) {
  std::set<std::array<double, 3>> vertices;
  for (vtkIdType p = 0; p < mesh->GetNumberOfPoints(); ++p) {
    std::array<double, 3> x;
    mesh->GetPoint(p, x.data());
    vertices.insert(x);
  }
  return vertices;
}

}  // namespace

// Two slabs sharing the plane of samples x index 20, each smoothed with iterations + 1 ghost
// layers beyond the cut, give together exactly the vertices and triangles of the whole field,
// bit for bit: vertices on the shared plane coincide, so the pieces weld into one surface.
TEST(SurfaceMesh, SlabsSharingAPlaneGiveTheWholeSurface) {
  const std::vector<Vec3> particles = ball_of_particles(6);
  const double reach = 7 * kSpacing + 2 * kKernel;
  SampledField whole = sample_surface(surface_of(particles), {-reach, -reach, -reach},
                                      {reach, reach, reach}, kSpacing / 2);
  const SmoothingOptions smoothing{3, 2};
  const int ghosts = smoothing.iterations + 1, cut = 20, last = whole.samples[0] - 1;
  SampledField left = x_slab(whole, 0, cut, ghosts), right = x_slab(whole, cut, last, ghosts);
  for (SampledField* field : {&whole, &left, &right}) smooth_near_surface(*field, smoothing);

  vtkSmartPointer<vtkPolyData> whole_mesh = zero_level_mesh(whole);
  SampleRange left_owned{{0, 0, 0}, {cut, left.samples[1] - 1, left.samples[2] - 1}};
  SampleRange right_owned{{ghosts, 0, 0},
                          {right.samples[0] - 1, right.samples[1] - 1, right.samples[2] - 1}};
  vtkSmartPointer<vtkPolyData> left_mesh = zero_level_mesh(left, left_owned);
  vtkSmartPointer<vtkPolyData> right_mesh = zero_level_mesh(right, right_owned);

  std::set<std::array<double, 3>> pieces = vertices_of(left_mesh);
  const std::set<std::array<double, 3>> right_vertices = vertices_of(right_mesh);
  const size_t apart = pieces.size() + right_vertices.size();
  pieces.insert(right_vertices.begin(), right_vertices.end());
  RecordProperty("vertices_on_the_shared_plane", std::to_string(apart - pieces.size()));
  EXPECT_GT(apart - pieces.size(), 10u);  // the cut crosses the ball
  EXPECT_EQ(pieces, vertices_of(whole_mesh));
  EXPECT_EQ(left_mesh->GetNumberOfPolys() + right_mesh->GetNumberOfPolys(),
            whole_mesh->GetNumberOfPolys());
}

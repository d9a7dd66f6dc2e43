// The Zhu & Bridson particle surface (postproc/surface/): exact for one particle; a ball of
// particles gives a closed mesh of the ball's volume.
#include <gtest/gtest.h>

#include <vtkCellArray.h>
#include <vtkDataArray.h>
#include <vtkPointData.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "postproc/surface/implicit_surface.hpp"
#include "postproc/surface/surface_mesh.hpp"

using namespace dunesim;

namespace {

constexpr double kSpacing = 0.01;         // particle spacing h
constexpr double kRadius = kSpacing / 2;  // each particle's radius
constexpr double kKernel = 2 * kSpacing;  // R

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

// Particles at the centres of a lattice of spacing h inside a ball of radius 6 h.
std::vector<Vec3> ball_of_particles() {
  std::vector<Vec3> p;
  for (int i = -7; i < 7; ++i)
    for (int j = -7; j < 7; ++j)
      for (int k = -7; k < 7; ++k) {
        const Vec3 x{(i + 0.5) * kSpacing, (j + 0.5) * kSpacing, (k + 0.5) * kSpacing};
        if (x[0] * x[0] + x[1] * x[1] + x[2] * x[2] < 36 * kSpacing * kSpacing) p.push_back(x);
      }
  return p;
}

}  // namespace

// The ball's surface through flying edges on a grid of half the spacing: closed (every edge
// in two triangles), its normals outward, and the volume it encloses within 5% of the
// particles' (one h^3 each).
TEST(SurfaceMesh, BallGivesAClosedSurfaceOfItsVolume) {
  const std::vector<Vec3> particles = ball_of_particles();
  ParticleSurface surface(particles, std::vector<double>(particles.size(), kRadius), kKernel);
  const double reach = 6 * kSpacing + 2 * kKernel;
  const SampledField field =
      sample_surface(surface, {-reach, -reach, -reach}, {reach, reach, reach}, kSpacing / 2);
  vtkSmartPointer<vtkPolyData> mesh = zero_level_mesh(field);
  ASSERT_GT(mesh->GetNumberOfPolys(), 100);

  std::map<std::pair<vtkIdType, vtkIdType>, int> edges;
  double volume = 0;
  int inward_normals = 0;
  vtkDataArray* normals = mesh->GetPointData()->GetNormals();
  ASSERT_NE(normals, nullptr);
  auto cells = mesh->GetPolys();
  cells->InitTraversal();
  vtkIdType n_ids;
  const vtkIdType* ids;
  while (cells->GetNextCell(n_ids, ids)) {
    ASSERT_EQ(n_ids, 3);
    double v[3][3];
    for (int c = 0; c < 3; ++c) {
      mesh->GetPoint(ids[c], v[c]);
      const vtkIdType a = ids[c], b = ids[(c + 1) % 3];
      ++edges[{std::min(a, b), std::max(a, b)}];
    }
    // Signed volume of the tetrahedron (origin, v0, v1, v2).
    volume += (v[0][0] * (v[1][1] * v[2][2] - v[1][2] * v[2][1]) -
               v[0][1] * (v[1][0] * v[2][2] - v[1][2] * v[2][0]) +
               v[0][2] * (v[1][0] * v[2][1] - v[1][1] * v[2][0])) /
              6;
  }
  for (vtkIdType p = 0; p < mesh->GetNumberOfPoints(); ++p) {
    double x[3], n[3];
    mesh->GetPoint(p, x);
    normals->GetTuple(p, n);
    if (x[0] * n[0] + x[1] * n[1] + x[2] * n[2] <= 0) ++inward_normals;
  }
  int open_edges = 0;
  for (const auto& [edge, faces] : edges) open_edges += faces != 2;
  const double particle_volume = double(particles.size()) * std::pow(kSpacing, 3);
  RecordProperty("enclosed_over_particle_volume",
                 std::to_string(std::abs(volume) / particle_volume));
  EXPECT_EQ(open_edges, 0);
  EXPECT_EQ(inward_normals, 0);
  EXPECT_NEAR(std::abs(volume), particle_volume, 0.05 * particle_volume);
}

// Triangle meshes: OBJ reading and its errors, exact distances and winding numbers, and the
// sampled signed-distance grid against exact values, volumes and a mesh with a hole.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "io/triangle_mesh.hpp"

namespace dunesim {
namespace {

std::string test_mesh(const std::string& name) {
  return std::string(DUNESIM_TEST_MESHES_DIR) + "/" + name;
}

// The exact signed distance of the unit cube, as the analytic block computes it.
double cube_distance(const Vec3& p) {
  ShapeSpec cube;
  cube.kind = ShapeSpec::Kind::Block;
  cube.min = {0, 0, 0};
  cube.max = {1, 1, 1};
  return cube.signed_distance(p);
}

// Parses `text` expecting a MeshError on `line` whose message contains `part`.
void expect_obj_error(const std::string& text, int line, const std::string& part) {
  try {
    parse_obj(text, "m.obj");
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const MeshError& e) {
    std::string message = e.what();
    EXPECT_EQ(e.file(), "m.obj");
    EXPECT_EQ(e.line(), line) << message;
    EXPECT_NE(message.find(part), std::string::npos)
        << "message: " << message << "\nlacks: " << part;
    if (line > 0)
      EXPECT_NE(message.find("line " + std::to_string(line) + ":"), std::string::npos) << message;
  }
}

// A sphere of `radius` about `centre`: an icosahedron with each triangle split into four
// `levels` times and the vertices pushed onto the sphere.
TriangleMesh icosphere(const Vec3& centre, double radius, int levels) {
  const double g = (1.0 + std::sqrt(5.0)) / 2.0;
  TriangleMesh m;
  m.vertices = {{-1, g, 0},  {1, g, 0},  {-1, -g, 0}, {1, -g, 0}, {0, -1, g},  {0, 1, g},
                {0, -1, -g}, {0, 1, -g}, {g, 0, -1},  {g, 0, 1},  {-g, 0, -1}, {-g, 0, 1}};
  m.triangles = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                 {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                 {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                 {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  for (int level = 0; level < levels; ++level) {
    std::map<std::pair<int, int>, int> midpoints;
    auto midpoint = [&](int a, int b) {
      auto key = std::minmax(a, b);
      auto found = midpoints.find(key);
      if (found != midpoints.end()) return found->second;
      Vec3 v;
      for (int k = 0; k < 3; ++k) v[k] = 0.5 * (m.vertices[a][k] + m.vertices[b][k]);
      m.vertices.push_back(v);
      return midpoints[key] = static_cast<int>(m.vertices.size()) - 1;
    };
    std::vector<std::array<int, 3>> finer;
    for (const auto& t : m.triangles) {
      int ab = midpoint(t[0], t[1]), bc = midpoint(t[1], t[2]), ca = midpoint(t[2], t[0]);
      finer.insert(finer.end(), {{t[0], ab, ca}, {t[1], bc, ab}, {t[2], ca, bc}, {ab, bc, ca}});
    }
    m.triangles = finer;
  }
  for (Vec3& v : m.vertices) {
    double length = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; ++k) v[k] = centre[k] + radius * v[k] / length;
  }
  return m;
}

// The volume of the points of `shape` on a lattice of `n`^3 cell centres over [lo, hi].
double lattice_volume(const MeshShape& shape, const Vec3& lo, const Vec3& hi, int n) {
  long long inside = 0;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        Vec3 p{lo[0] + (i + 0.5) * (hi[0] - lo[0]) / n, lo[1] + (j + 0.5) * (hi[1] - lo[1]) / n,
               lo[2] + (k + 0.5) * (hi[2] - lo[2]) / n};
        inside += shape.contains(p);
      }
  return double(inside) / (double(n) * n * n) * (hi[0] - lo[0]) * (hi[1] - lo[1]) *
         (hi[2] - lo[2]);
}

TEST(ObjReading, CubeAndTetra) {
  TriangleMesh cube = read_obj(test_mesh("cube.obj"));
  EXPECT_EQ(cube.vertices.size(), 8u);
  EXPECT_EQ(cube.triangles.size(), 12u);
  EXPECT_DOUBLE_EQ(cube.signed_volume(), 1.0);  // positive: the triangles face outward
  auto [lo, hi] = cube.bounds();
  EXPECT_EQ(lo, (Vec3{0, 0, 0}));
  EXPECT_EQ(hi, (Vec3{1, 1, 1}));

  TriangleMesh tetra = read_obj(test_mesh("tetra.obj"));
  EXPECT_EQ(tetra.vertices.size(), 4u);
  ASSERT_EQ(tetra.triangles.size(), 4u);
  EXPECT_EQ(tetra.triangles[1], (std::array<int, 3>{0, 1, 3}));  // "f -4 -3 -1"
  EXPECT_DOUBLE_EQ(tetra.vertices[3][2], 1.0);                   // "+1e0"
  EXPECT_DOUBLE_EQ(tetra.signed_volume(), 1.0 / 6.0);

  tetra.transform(2.0, {1, 0, -1});
  EXPECT_EQ(tetra.vertices[1], (Vec3{3, 0, -1}));
  EXPECT_DOUBLE_EQ(tetra.signed_volume(), 8.0 / 6.0);
}

TEST(ObjReading, PolygonsAreFanTriangulated) {
  // The unit cube again, as six quads, with CRLF line ends.
  std::string text =
      "v 0 0 0\r\nv 1 0 0\r\nv 1 1 0\r\nv 0 1 0\r\nv 0 0 1\r\nv 1 0 1\r\nv 1 1 1\r\nv 0 1 1\r\n"
      "f 1 4 3 2\r\nf 5 6 7 8\r\nf 1 2 6 5\r\nf 4 8 7 3\r\nf 1 5 8 4\r\nf 2 3 7 6\r\n";
  TriangleMesh cube = parse_obj(text, "quads.obj");
  EXPECT_EQ(cube.triangles.size(), 12u);
  EXPECT_DOUBLE_EQ(cube.signed_volume(), 1.0);
  // A pentagon becomes three triangles; a face repeating a vertex loses the degenerate one.
  std::string pentagon = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0.5 1.5 0\nv 0 1 0\nf 1 2 3 4 5\n";
  EXPECT_EQ(parse_obj(pentagon, "p.obj").triangles.size(), 3u);
  EXPECT_EQ(parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 2 3\n", "d.obj").triangles.size(), 1u);
}

TEST(ObjReading, ErrorsNameTheLineAndWhatWasExpected) {
  const std::string three = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
  expect_obj_error("v 0 0\n", 1, "expected 3 numbers after 'v'");
  expect_obj_error(three + "v 0 x 1\n", 4,
                   "expected 3 finite numbers after 'v', got \"v 0 x 1\"");
  expect_obj_error("v 0 0 nan\n", 1, "finite");
  expect_obj_error(three + "f 1 2\n", 4, "expected at least 3 vertex indices after 'f'");
  expect_obj_error(three + "\n# comment\nf 1 2 4\n", 6,
                   "vertex index 4 is out of range (3 vertices are defined above this line)");
  expect_obj_error(three + "f 0 1 2\n", 4, "vertex index 0 is out of range");
  expect_obj_error(three + "f -4 1 2\n", 4, "vertex index -4 is out of range");
  expect_obj_error(three + "f 1 2 c\n", 4, "expected vertex indices (i, i/t, i//n or i/t/n)");
  expect_obj_error(three + "f 1 2 /3\n", 4, "expected vertex indices");
  expect_obj_error(three + "vx 1 2 3\n", 4, "unknown statement 'vx'");
  expect_obj_error(three, 0, "no triangles");
  expect_obj_error("", 0, "no triangles");

  try {
    read_obj(test_mesh("bad_vertex.obj"));
    ADD_FAILURE() << "no error for bad_vertex.obj";
  } catch (const MeshError& e) {
    EXPECT_EQ(e.line(), 4);
    EXPECT_NE(std::string(e.what()).find("bad_vertex.obj: line 4: expected 3 finite numbers"),
              std::string::npos)
        << e.what();
  }
  try {
    read_obj(test_mesh("no_such_mesh.obj"));
    ADD_FAILURE() << "no error for a missing file";
  } catch (const MeshError& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_mesh.obj: cannot open"), std::string::npos)
        << e.what();
  }
}

TEST(TriangleBvh, ExactDistanceAndWindingNumber) {
  TriangleBvh cube(read_obj(test_mesh("cube.obj")));
  EXPECT_NEAR(cube.distance({0.5, 0.5, 0.5}), 0.5, 1e-15);
  EXPECT_NEAR(cube.distance({0.3, 0.5, 0.9}), 0.1, 1e-15);
  EXPECT_NEAR(cube.distance({2.0, 3.0, 0.5}), std::sqrt(5.0), 1e-15);  // to an edge
  EXPECT_NEAR(cube.distance({-1, -1, -1}), std::sqrt(3.0), 1e-15);     // to a corner
  EXPECT_NEAR(cube.winding_number({0.5, 0.5, 0.5}), 1.0, 1e-12);
  EXPECT_NEAR(cube.winding_number({0.01, 0.98, 0.5}), 1.0, 1e-12);
  EXPECT_NEAR(cube.winding_number({1.5, 0.5, 0.5}), 0.0, 1e-12);
  EXPECT_NEAR(cube.winding_number({30, -20, 10}), 0.0, 1e-3);  // summed as a dipole
}

// The grid stores exact distances at its nodes, so its error is trilinear interpolation's:
// none where the exact distance is linear over a grid cell (next to one face, or outside
// the grid along a face normal) beyond float rounding (1e-6 here); at most
// sum_i w_i |node_i - p| <= sqrt(3)/2 h anywhere, because the exact distance is 1-Lipschitz
// (this covers the kinks inside, where the nearest face changes); and h^2/8 times the
// second derivatives, 3 h^2 / (8 r) at distance r, outside an edge or a corner.
TEST(MeshShape, CubeSignedDistance) {
  const double h = 0.05;
  MeshShape cube(read_obj(test_mesh("cube.obj")), h);
  EXPECT_DOUBLE_EQ(cube.spacing(), h);
  const double kLinear = 1e-6, kKink = std::sqrt(3.0) / 2.0 * h;

  // Next to a face, inside and outside.
  EXPECT_NEAR(cube.signed_distance({0.5, 0.43, 0.1}), -0.1, kLinear);
  EXPECT_NEAR(cube.signed_distance({0.37, 0.5, 0.96}), -0.04, kLinear);
  EXPECT_NEAR(cube.signed_distance({0.5, 0.61, 1.07}), 0.07, kLinear);
  EXPECT_NEAR(cube.signed_distance({-0.12, 0.3, 0.8}), 0.12, kLinear);
  EXPECT_NEAR(cube.signed_distance({0.5, 0.5, 1.0}), 0.0, kLinear);
  // Outside the grid (which ends 3 h beyond the cube): distance to the grid plus its value.
  EXPECT_NEAR(cube.signed_distance({3.0, 0.5, 0.5}), 2.0, kLinear);
  EXPECT_NEAR(cube.signed_distance({3.0, 3.0, 3.0}), 2.0 * std::sqrt(3.0), kLinear);
  // Near the centre, where the nearest face changes.
  EXPECT_NEAR(cube.signed_distance({0.48, 0.52, 0.51}), -0.48, kKink);
  // Outside a corner and an edge: a curved distance.
  Vec3 corner{1.07, 1.08, 1.09}, edge{1.06, 0.5, -0.08};
  EXPECT_NEAR(cube.signed_distance(corner), cube_distance(corner), 3 * h * h / (8 * 0.07));
  EXPECT_NEAR(cube.signed_distance(edge), cube_distance(edge), 3 * h * h / (8 * 0.06));
}

// Away from the surface the nodes may be interpolated from the grids 2 h and H = 4 h apart,
// which adds at most sqrt(3)/2 H by the same Lipschitz argument; a node is interpolated
// only where the corners of its cell on the 2 h grid lie farther than two of that cell's
// diagonals (4 sqrt(3) h) from the surface, so a point closer than 2 sqrt(3) h only sees
// exact nodes.
// Outside the grid the value may overestimate, but never underestimates by more than the
// error on the grid's boundary.
TEST(MeshShape, CubeAgainstTheExactDistanceEverywhere) {
  const double h = 0.02, coarse = 4 * h;
  MeshShape cube(read_obj(test_mesh("cube.obj")), h);
  const double kNear = std::sqrt(3.0) / 2.0 * h, kFar = std::sqrt(3.0) / 2.0 * (coarse + h);
  const Vec3 grid_lo{-3 * h, -3 * h, -3 * h}, grid_hi{1 + 3 * h, 1 + 3 * h, 1 + 3 * h};
  int checked_far = 0;
  for (int k = 0; k < 31; ++k)
    for (int j = 0; j < 31; ++j)
      for (int i = 0; i < 31; ++i) {
        Vec3 p{-0.5 + 0.0661 * i, -0.5 + 0.0653 * j, -0.5 + 0.0667 * k};
        double exact = cube_distance(p), value = cube.signed_distance(p);
        bool in_grid = true;
        for (int a = 0; a < 3; ++a) in_grid = in_grid && p[a] >= grid_lo[a] && p[a] <= grid_hi[a];
        if (!in_grid) {
          ASSERT_GE(value, exact - kNear) << p[0] << " " << p[1] << " " << p[2];
        } else if (std::abs(exact) <= 2.0 * std::sqrt(3.0) * h) {
          ASSERT_NEAR(value, exact, kNear) << p[0] << " " << p[1] << " " << p[2];
        } else {
          ASSERT_NEAR(value, exact, kFar) << p[0] << " " << p[1] << " " << p[2];
          ++checked_far;
        }
        if (std::abs(exact) > kFar) EXPECT_EQ(cube.contains(p), exact < 0.0);
      }
  EXPECT_GT(checked_far, 100);
}

TEST(MeshShape, SphereVolumeFraction) {
  // 1280 triangles, radius 0.4: the polyhedron's own volume is the reference, so only the
  // grid and the point count are being tested. The interpolated surface moves by about
  // h^2 / (8 R) = 1e-4 m, the counting error is about 1e-4 of the box; 0.5% covers both.
  TriangleMesh sphere = icosphere({0.5, 0.5, 0.5}, 0.4, 3);
  const double exact = sphere.signed_volume();
  EXPECT_NEAR(exact, 4.0 / 3.0 * std::acos(-1.0) * 0.064, 0.02 * exact);  // it is nearly a sphere
  MeshShape shape(sphere, 0.02);
  double counted = lattice_volume(shape, {0, 0, 0}, {1, 1, 1}, 100);  // 1e6 queries
  EXPECT_NEAR(counted / exact, 1.0, 0.005);
}

TEST(MeshShape, MeshWithAHoleStillHasAnInside) {
  // Half of the top face is missing. Ray parity would call every point under the hole
  // outside; the winding number at the centre drops only by the hole's solid angle,
  // 1/12 of the sphere, and stays far above 1/2.
  TriangleMesh open_cube = read_obj(test_mesh("cube_open.obj"));
  ASSERT_EQ(open_cube.triangles.size(), 11u);
  EXPECT_NEAR(TriangleBvh(open_cube).winding_number({0.5, 0.5, 0.5}), 11.0 / 12.0, 1e-9);

  MeshShape shape(open_cube, 0.05);
  int inside = 0, outside = 0;
  for (int k = 0; k < 20; ++k)
    for (int j = 0; j < 20; ++j)
      for (int i = 0; i < 20; ++i) {
        Vec3 p{-0.5 + 0.1 * i + 0.013, -0.5 + 0.1 * j + 0.027, -0.5 + 0.1 * k + 0.041};
        double exact = cube_distance(p);
        if (std::abs(exact) < 0.1) continue;  // close to the surface, or to the hole
        EXPECT_EQ(shape.contains(p), exact < 0.0) << p[0] << " " << p[1] << " " << p[2];
        (exact < 0.0 ? inside : outside)++;
      }
  EXPECT_GT(inside, 200);
  EXPECT_GT(outside, 4000);
  // Right under and right over the hole.
  EXPECT_TRUE(shape.contains({0.7, 0.3, 0.9}));
  EXPECT_FALSE(shape.contains({0.7, 0.3, 1.1}));
}

TEST(MeshShape, GridIsCoarsenedToItsCap) {
  // 1e10 nodes per axis: more than an int counts.
  MeshShape cube(read_obj(test_mesh("cube.obj")), 1e-10);
  const auto& n = cube.node_counts();
  EXPECT_LE(size_t(n[0]) * n[1] * n[2], MeshShape::kMaxNodes);
  EXPECT_GT(size_t(n[0]) * n[1] * n[2], MeshShape::kMaxNodes / 2);
  EXPECT_GT(cube.spacing(), 1.0 / 160);
  EXPECT_NEAR(cube.signed_distance({0.5, 0.5, 0.2}), -0.2, 1e-6);
}

TEST(MeshShape, BunnyVolume) {
  const std::string bunny_file = std::string(DUNESIM_CASES_DIR) + "/meshes/bunny.obj";
  if (!std::filesystem::exists(bunny_file))
    GTEST_SKIP() << bunny_file << " is missing; cases/meshes/fetch_bunny.sh makes it";
  TriangleMesh bunny = read_obj(bunny_file);
  bunny.transform(0.6, {0.3, 0.27, 0.3});  // as in cases/sand_bunny.toml
  const double exact = bunny.signed_volume();
  ASSERT_GT(exact, 0.0);
  MeshShape shape(bunny, 0.01);  // the cases' cell size is 0.02 m
  auto [lo, hi] = bunny.bounds();
  // Counting at 1/3 of the grid spacing; the scan's thin ears make the surface error
  // larger than for the sphere, hence 1%.
  double counted = lattice_volume(shape, lo, hi, 180);
  EXPECT_NEAR(counted / exact, 1.0, 0.01);
}

}  // namespace
}  // namespace dunesim

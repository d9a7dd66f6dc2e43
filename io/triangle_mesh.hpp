// Triangle meshes as solid shapes: Wavefront OBJ reading, exact distance and winding-number
// queries over a bounding-volume hierarchy, and a sampled signed-distance grid that answers
// the simulation's many point queries in constant time.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "decomposition/vec3.hpp"

namespace dunesim {

// A mesh file that cannot be read or is malformed. The message names the file and, for a
// bad line, its number and what was expected there.
class MeshError : public std::runtime_error {
 public:
  MeshError(const std::string& file, int line, const std::string& problem);
  const std::string& file() const { return file_; }
  int line() const { return line_; }  // 0 when the problem is not on one line

 private:
  std::string file_;
  int line_;
};

struct TriangleMesh {
  std::vector<Vec3> vertices;
  // Indices into `vertices`; counter-clockwise seen from outside for a positive volume.
  std::vector<std::array<int, 3>> triangles;

  // {lower corner, upper corner} of the vertices' bounding box.
  std::array<Vec3, 2> bounds() const;
  // The enclosed volume by the divergence theorem: positive when the triangles face
  // outward. Exact for a closed mesh; for an open one it depends on where the holes are.
  double signed_volume() const;
  // p -> scale * p + translate for every vertex.
  void transform(double scale, const Vec3& translate);
};

// Parses Wavefront OBJ text: `v x y z` vertices and `f` faces (1-based or negative
// indices, `i/t/n` forms accepted; polygons are fan-triangulated). Normals, texture
// coordinates, groups, materials and smoothing statements are ignored; anything else is an
// error. `file` only labels error messages.
TriangleMesh parse_obj(const std::string& text, const std::string& file);
// The text of an OBJ file, read whole. Throws MeshError ("cannot open: ...") for what cannot
// be a mesh file: a directory, a device, a pipe, a file above 1 GiB.
std::string read_obj_text(const std::string& path);
// Reads and parses an OBJ file.
TriangleMesh read_obj(const std::string& path);

// Exact queries against a mesh's triangles, each O(log n) on average.
class TriangleBvh {
 public:
  explicit TriangleBvh(const TriangleMesh& mesh);

  // Euclidean distance from p to the nearest triangle. `nearest` is that triangle's index
  // in this tree's own order: on entry a guess (any index, or -1 for none), which prunes
  // the search when it is close (a neighbouring point's answer is); on return the answer.
  double distance(const Vec3& p, int& nearest) const;
  double distance(const Vec3& p) const {
    int none = -1;
    return distance(p, none);
  }
  // The generalized winding number (Jacobson et al. 2013): 1 inside and 0 outside a
  // closed, outward-facing mesh, and a smooth in-between value near holes, so thresholding
  // it at 1/2 tolerates holes that ray parity would not. Clusters of triangles far from p
  // are summed as one dipole (Barill et al. 2018), with an error of a few hundredths.
  double winding_number(const Vec3& p) const;

 private:
  struct Triangle {
    Vec3 a, b, c;
  };
  struct Node {
    Vec3 lo, hi;       // bounding box of the node's triangles
    Vec3 centroid;     // area-weighted centroid of the node's triangles
    Vec3 area_normal;  // sum of the triangles' area vectors: the far-field dipole
    double radius;     // distance from `centroid` to the node's farthest vertex
    int first, count;  // a leaf's triangles: [first, first + count); 0 for inner nodes
    int second_child;  // inner nodes; the first child directly follows its parent
  };

  int build(int first, int last);

  std::vector<Triangle> triangles_;  // reordered so that every node's triangles are adjacent
  std::vector<Node> nodes_;          // nodes_[0] is the root
};

// An exact query's answer at one grid node: the distance to the nearest triangle and the
// winding number (inside when above 1/2).
struct MeshSample {
  double distance, winding;
};
// Returns sample(n) for every n in [0, count), in order. `sample_here` computes them all on
// this process; the case reader passes one that splits them over its ranks and gathers the
// results (every rank must then build the same MeshShape).
using MeshSampler =
    std::function<std::vector<MeshSample>(size_t count,
                                          const std::function<MeshSample(size_t)>& sample)>;
std::vector<MeshSample> sample_here(size_t count,
                                    const std::function<MeshSample(size_t)>& sample);

// A (nearly) closed triangle mesh as a solid. Signed distances are sampled once on a regular
// grid over the mesh's bounding box and trilinearly interpolated afterwards.
class MeshShape {
 public:
  // Grid nodes added beyond the mesh's bounding box on every side, so the zero level set
  // and the gradient next to it are interpolated rather than extrapolated.
  static constexpr int kPaddingNodes = 3;
  // A cap on the grid (16 MiB of floats per rank); a finer spacing is coarsened to fit.
  static constexpr size_t kMaxNodes = size_t(1) << 22;

  // Samples the signed distance of `mesh` (already in world coordinates, m) on a grid with
  // nodes `spacing` apart, or coarser where kMaxNodes requires; `sampler` runs the exact
  // queries.
  MeshShape(TriangleMesh mesh, double spacing, const MeshSampler& sampler = sample_here);

  // Negative inside, positive outside, in metres. Within 2 sqrt(3) spacings of the surface
  // the nodes around a point hold exact values, so the error is trilinear interpolation's:
  // none where the distance is linear, at most sqrt(3)/2 spacing at kinks. Farther away the
  // nodes are interpolated from grids 2 and 4 times coarser (error at most 3.5 spacings;
  // signs kept).
  // Outside the grid: the distance to the grid box plus the value on its boundary, which
  // never underestimates by more than the error on the boundary.
  double signed_distance(const Vec3& p) const;
  bool contains(const Vec3& p) const { return signed_distance(p) <= 0.0; }

  // {lower corner, upper corner} of the sampled grid: outside it every point is outside.
  std::array<Vec3, 2> grid_box() const;
  const TriangleMesh& mesh() const { return mesh_; }
  double spacing() const { return spacing_; }
  const std::array<int, 3>& node_counts() const { return counts_; }

 private:
  double interpolate(const Vec3& p) const;  // p within the grid box

  TriangleMesh mesh_;
  Vec3 origin_{};  // position of node (0, 0, 0)
  double spacing_ = 0.0;
  std::array<int, 3> counts_{};
  std::vector<float> values_;  // x fastest
};

}  // namespace dunesim

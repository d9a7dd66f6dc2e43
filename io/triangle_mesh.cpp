#include "io/triangle_mesh.hpp"

#include "io/input_file.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>

namespace dunesim {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr int kLeafSize = 4;
// A cluster of triangles is summed as one dipole when p is farther from its centroid than
// this many times its radius. With 2 the winding number's error on the Stanford bunny is
// 0.01 on average and at most 0.06 (deep inside, where the errors of many clusters add up),
// far from the 1/2 threshold except right at a hole, where the exact value is ~1/2 anyway.
constexpr double kFarFieldRatio = 2.0;
// The distance grid is first sampled this many times coarser, then refined twice (see
// refine()).
constexpr int kCoarseFactor = 4;
// Every rank holds the whole mesh: a scanned mesh of millions of triangles fits, a mistake
// (a disk image, a device) does not.
constexpr uint64_t kMaxObjFileBytes = uint64_t(1) << 30;

Vec3 operator-(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec3 operator+(const Vec3& a, const Vec3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
Vec3 operator*(double s, const Vec3& a) { return {s * a[0], s * a[1], s * a[2]}; }
double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double norm(const Vec3& a) { return std::sqrt(dot(a, a)); }

double squared_distance_to_segment(const Vec3& p, const Vec3& a, const Vec3& b) {
  Vec3 ab = b - a;
  double length2 = dot(ab, ab);
  double t = length2 > 0.0 ? std::clamp(dot(p - a, ab) / length2, 0.0, 1.0) : 0.0;
  Vec3 d = p - (a + t * ab);
  return dot(d, d);
}

// Ericson, Real-Time Collision Detection, 5.1.5: the closest point by Voronoi region.
double squared_distance_to_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  Vec3 ab = b - a, ac = c - a;
  Vec3 n = cross(ab, ac);
  if (dot(n, n) == 0.0) {
    // A degenerate (zero-area) triangle is its edges; the regions below would divide by 0.
    return std::min({squared_distance_to_segment(p, a, b), squared_distance_to_segment(p, b, c),
                     squared_distance_to_segment(p, c, a)});
  }
  Vec3 ap = p - a;
  double d1 = dot(ab, ap), d2 = dot(ac, ap);
  if (d1 <= 0.0 && d2 <= 0.0) return dot(ap, ap);
  Vec3 bp = p - b;
  double d3 = dot(ab, bp), d4 = dot(ac, bp);
  if (d3 >= 0.0 && d4 <= d3) return dot(bp, bp);
  double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
    Vec3 d = p - (a + (d1 / (d1 - d3)) * ab);
    return dot(d, d);
  }
  Vec3 cp = p - c;
  double d5 = dot(ab, cp), d6 = dot(ac, cp);
  if (d6 >= 0.0 && d5 <= d6) return dot(cp, cp);
  double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
    Vec3 d = p - (a + (d2 / (d2 - d6)) * ac);
    return dot(d, d);
  }
  double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
    Vec3 d = p - (b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b));
    return dot(d, d);
  }
  // Inside the face region: the distance to the plane.
  double height = dot(ap, n);
  return height * height / dot(n, n);
}

// The solid angle of triangle abc seen from p (Van Oosterom & Strackee 1983); positive when
// p is behind the counter-clockwise face.
double solid_angle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  Vec3 pa = a - p, pb = b - p, pc = c - p;
  double la = norm(pa), lb = norm(pb), lc = norm(pc);
  double numerator = dot(pa, cross(pb, pc));
  double denominator = la * lb * lc + dot(pa, pb) * lc + dot(pa, pc) * lb + dot(pb, pc) * la;
  return 2.0 * std::atan2(numerator, denominator);
}

double squared_distance_to_box(const Vec3& p, const Vec3& lo, const Vec3& hi) {
  double d2 = 0.0;
  for (int a = 0; a < 3; ++a) {
    double d = std::max({lo[a] - p[a], 0.0, p[a] - hi[a]});
    d2 += d * d;
  }
  return d2;
}

// --- OBJ parsing ---

std::string quoted_line(std::string_view line) {
  constexpr size_t kMaxShown = 60;
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())))
    line.remove_suffix(1);
  if (line.size() > kMaxShown) return "\"" + std::string(line.substr(0, kMaxShown)) + "...\"";
  return "\"" + std::string(line) + "\"";
}

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

bool parse_double(std::string_view word, double& value) {
  if (!word.empty() && word.front() == '+') word.remove_prefix(1);
  auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
  return error == std::errc() && end == word.data() + word.size() && std::isfinite(value);
}

// The vertex part of a face corner "v", "v/t", "v//n" or "v/t/n".
bool parse_vertex_reference(std::string_view word, long long& index) {
  word = word.substr(0, word.find('/'));
  if (!word.empty() && word.front() == '+') word.remove_prefix(1);
  auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), index);
  return !word.empty() && error == std::errc() && end == word.data() + word.size();
}

// Statements that carry nothing a solid needs (normals, texture coordinates, grouping,
// materials, lines and points).
constexpr std::string_view kIgnoredStatements[] = {"vn", "vt",     "vp",     "o", "g",
                                                   "s",  "usemtl", "mtllib", "l", "p"};

}  // namespace

MeshError::MeshError(const std::string& file, int line, const std::string& problem)
    : std::runtime_error(file + ": " + (line > 0 ? "line " + std::to_string(line) + ": " : "") +
                         problem),
      file_(file),
      line_(line) {}

std::array<Vec3, 2> TriangleMesh::bounds() const {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  Vec3 lo{kInf, kInf, kInf}, hi{-kInf, -kInf, -kInf};
  for (const Vec3& v : vertices) {
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], v[a]);
      hi[a] = std::max(hi[a], v[a]);
    }
  }
  return {lo, hi};
}

double TriangleMesh::signed_volume() const {
  // Sum of the signed tetrahedra (origin, a, b, c), taken about a vertex so that a mesh
  // far from the origin loses no precision.
  const Vec3 o = vertices.empty() ? Vec3{0, 0, 0} : vertices[0];
  double six_volume = 0.0;
  for (const auto& t : triangles)
    six_volume += dot(vertices[t[0]] - o, cross(vertices[t[1]] - o, vertices[t[2]] - o));
  return six_volume / 6.0;
}

void TriangleMesh::transform(double scale, const Vec3& translate) {
  for (Vec3& v : vertices) v = scale * v + translate;
}

TriangleMesh parse_obj(const std::string& text, const std::string& file) {
  TriangleMesh mesh;
  std::string_view rest(text);
  int line_number = 0;
  while (!rest.empty()) {
    size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    ++line_number;
    std::vector<std::string_view> words = split_words(line.substr(0, line.find('#')));
    if (words.empty()) continue;
    std::string_view statement = words[0];
    auto fail = [&](const std::string& problem) {
      throw MeshError(file, line_number, problem + ", got " + quoted_line(line));
    };

    if (statement == "v") {
      // x y z, optionally followed by w or by a colour, which a solid does not need.
      Vec3 v;
      if (words.size() < 4) fail("expected 3 numbers after 'v' (v x y z)");
      for (int a = 0; a < 3; ++a)
        if (!parse_double(words[1 + a], v[a])) fail("expected 3 finite numbers after 'v'");
      mesh.vertices.push_back(v);
    } else if (statement == "f") {
      if (words.size() < 4) fail("expected at least 3 vertex indices after 'f'");
      std::vector<int> corners;
      const long long defined = static_cast<long long>(mesh.vertices.size());
      for (size_t w = 1; w < words.size(); ++w) {
        long long index = 0;
        if (!parse_vertex_reference(words[w], index))
          fail("expected vertex indices (i, i/t, i//n or i/t/n) after 'f'");
        // 1-based, or negative counting back from the last vertex defined so far.
        long long zero_based = index > 0 ? index - 1 : defined + index;
        if (index == 0 || zero_based < 0 || zero_based >= defined) {
          fail("vertex index " + std::to_string(index) + " is out of range (" +
               std::to_string(defined) + " vertices are defined above this line)");
        }
        corners.push_back(static_cast<int>(zero_based));
      }
      // A fan from the first corner; exact for convex polygons, which is what exporters write.
      for (size_t c = 1; c + 1 < corners.size(); ++c) {
        std::array<int, 3> t{corners[0], corners[c], corners[c + 1]};
        if (t[0] != t[1] && t[1] != t[2] && t[0] != t[2]) mesh.triangles.push_back(t);
      }
    } else if (std::find(std::begin(kIgnoredStatements), std::end(kIgnoredStatements),
                         statement) == std::end(kIgnoredStatements)) {
      fail("unknown statement '" + std::string(statement) +
           "'; expected 'v', 'f' or one of the ignored vn vt vp o g s usemtl mtllib l p");
    }
  }
  if (mesh.triangles.empty()) throw MeshError(file, 0, "no triangles (no usable 'f' lines)");
  return mesh;
}

std::string read_obj_text(const std::string& path) {
  try {
    return read_input_file(path, kMaxObjFileBytes);
  } catch (const InputFileError& e) {
    throw MeshError(path, 0, std::string("cannot open: ") + e.what());
  }
}

TriangleMesh read_obj(const std::string& path) { return parse_obj(read_obj_text(path), path); }

TriangleBvh::TriangleBvh(const TriangleMesh& mesh) {
  triangles_.reserve(mesh.triangles.size());
  for (const auto& t : mesh.triangles)
    triangles_.push_back({mesh.vertices[t[0]], mesh.vertices[t[1]], mesh.vertices[t[2]]});
  nodes_.reserve(triangles_.size());  // leaves hold 2 to 4 triangles
  if (!triangles_.empty()) build(0, static_cast<int>(triangles_.size()));
}

int TriangleBvh::build(int first, int last) {
  const int index = static_cast<int>(nodes_.size());
  nodes_.emplace_back();
  Node node{};
  constexpr double kInf = std::numeric_limits<double>::infinity();
  node.lo = {kInf, kInf, kInf};
  node.hi = {-kInf, -kInf, -kInf};
  Vec3 centre_lo = node.lo, centre_hi = node.hi;
  double area = 0.0;
  Vec3 weighted_centre{0, 0, 0}, plain_centre{0, 0, 0};
  for (int t = first; t < last; ++t) {
    const Triangle& tri = triangles_[t];
    Vec3 centre = (1.0 / 3.0) * (tri.a + tri.b + tri.c);
    Vec3 area_vector = 0.5 * cross(tri.b - tri.a, tri.c - tri.a);
    double a = norm(area_vector);
    node.area_normal = node.area_normal + area_vector;
    weighted_centre = weighted_centre + a * centre;
    plain_centre = plain_centre + centre;
    area += a;
    for (int axis = 0; axis < 3; ++axis) {
      node.lo[axis] = std::min({node.lo[axis], tri.a[axis], tri.b[axis], tri.c[axis]});
      node.hi[axis] = std::max({node.hi[axis], tri.a[axis], tri.b[axis], tri.c[axis]});
      centre_lo[axis] = std::min(centre_lo[axis], centre[axis]);
      centre_hi[axis] = std::max(centre_hi[axis], centre[axis]);
    }
  }
  node.centroid =
      area > 0.0 ? (1.0 / area) * weighted_centre : (1.0 / (last - first)) * plain_centre;
  for (int t = first; t < last; ++t) {
    const Triangle& tri = triangles_[t];
    for (const Vec3* v : {&tri.a, &tri.b, &tri.c})
      node.radius = std::max(node.radius, norm(*v - node.centroid));
  }

  if (last - first <= kLeafSize) {
    node.first = first;
    node.count = last - first;
  } else {
    // Median split of the triangle centres along their widest axis.
    int axis = 0;
    for (int a = 1; a < 3; ++a)
      if (centre_hi[a] - centre_lo[a] > centre_hi[axis] - centre_lo[axis]) axis = a;
    int middle = first + (last - first) / 2;
    std::nth_element(triangles_.begin() + first, triangles_.begin() + middle,
                     triangles_.begin() + last, [axis](const Triangle& x, const Triangle& y) {
                       return x.a[axis] + x.b[axis] + x.c[axis] <
                              y.a[axis] + y.b[axis] + y.c[axis];
                     });
    build(first, middle);
    node.second_child = build(middle, last);
  }
  nodes_[index] = node;
  return index;
}

double TriangleBvh::distance(const Vec3& p, int& nearest) const {
  if (nodes_.empty()) return std::numeric_limits<double>::infinity();
  const int count = static_cast<int>(triangles_.size());
  // The guess's distance bounds the answer; a good guess prunes almost the whole tree.
  double best2 = std::numeric_limits<double>::infinity();
  if (nearest >= 0 && nearest < count) {
    const Triangle& guess = triangles_[nearest];
    best2 = squared_distance_to_triangle(p, guess.a, guess.b, guess.c);
  }
  int stack[64];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& node = nodes_[stack[--top]];
    if (squared_distance_to_box(p, node.lo, node.hi) >= best2) continue;
    if (node.count > 0) {
      for (int t = node.first; t < node.first + node.count; ++t) {
        const Triangle& tri = triangles_[t];
        double d2 = squared_distance_to_triangle(p, tri.a, tri.b, tri.c);
        if (d2 < best2) {
          best2 = d2;
          nearest = t;
        }
      }
      continue;
    }
    // Visit the nearer child first: its triangles shrink best2 and prune the other.
    int near = static_cast<int>(&node - nodes_.data()) + 1, far = node.second_child;
    if (squared_distance_to_box(p, nodes_[near].lo, nodes_[near].hi) >
        squared_distance_to_box(p, nodes_[far].lo, nodes_[far].hi))
      std::swap(near, far);
    stack[top++] = far;
    stack[top++] = near;
  }
  return std::sqrt(best2);
}

double TriangleBvh::winding_number(const Vec3& p) const {
  if (nodes_.empty()) return 0.0;
  double total = 0.0;  // 4 pi times the winding number
  int stack[64];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const int index = stack[--top];
    const Node& node = nodes_[index];
    Vec3 r = node.centroid - p;
    double r2 = dot(r, r);
    if (r2 > kFarFieldRatio * kFarFieldRatio * node.radius * node.radius) {
      // The cluster's solid angle to first order: its summed area vector as one dipole.
      total += dot(node.area_normal, r) / (r2 * std::sqrt(r2));
    } else if (node.count > 0) {
      for (int t = node.first; t < node.first + node.count; ++t)
        total += solid_angle(p, triangles_[t].a, triangles_[t].b, triangles_[t].c);
    } else {
      stack[top++] = index + 1;
      stack[top++] = node.second_child;
    }
  }
  return total / (4.0 * kPi);
}

std::vector<MeshSample> sample_here(size_t count,
                                    const std::function<MeshSample(size_t)>& sample) {
  std::vector<MeshSample> samples(count);
  for (size_t n = 0; n < count; ++n) samples[n] = sample(n);
  return samples;
}

namespace {

// Samples at the nodes of a regular grid, x fastest.
struct SampledLevel {
  std::array<int, 3> counts{};
  std::vector<MeshSample> samples;
  const MeshSample& at(int i, int j, int k) const {
    return samples[(size_t(k) * counts[1] + j) * counts[0] + i];
  }
};

// Exact samples at the given points (through the shape's MeshSampler); the winding number
// only where `winding` is set (elsewhere it is left 0).
using ExactSamples = std::function<std::vector<MeshSample>(const std::vector<Vec3>& points,
                                                           const std::vector<char>& winding)>;

// What a child node reads from the parent cell around it.
struct ParentCell {
  MeshSample interpolated{0.0, 0.0};
  double nearest_corner = std::numeric_limits<double>::infinity();
  bool one_side = true;  // all eight corners inside, or all outside
};

ParentCell parent_cell(const SampledLevel& parent, const int node[3]) {
  int cell[3];
  double t[3];
  for (int a = 0; a < 3; ++a) {
    cell[a] = std::min(node[a] / 2, parent.counts[a] - 2);
    t[a] = 0.5 * (node[a] - 2 * cell[a]);
  }
  ParentCell out;
  int inside = 0;
  for (int corner = 0; corner < 8; ++corner) {
    double weight = 1.0;
    int c[3];
    for (int a = 0; a < 3; ++a) {
      const int up = (corner >> a) & 1;
      weight *= up ? t[a] : 1.0 - t[a];
      c[a] = cell[a] + up;
    }
    const MeshSample& s = parent.at(c[0], c[1], c[2]);
    out.interpolated.distance += weight * s.distance;
    out.interpolated.winding += weight * s.winding;
    out.nearest_corner = std::min(out.nearest_corner, s.distance);
    inside += std::abs(s.winding) > 0.5;
  }
  out.one_side = inside == 0 || inside == 8;
  return out;
}

// The grid twice as fine as `parent`, with nodes `spacing` apart from `origin`, handed to
// store(index, sample) node by node. Nodes shared with the parent copy it. Exact queries
// are slowest far from the surface, where many triangles are nearly equidistant, and least
// needed there: where all eight corners of a parent cell lie farther than two of its
// diagonals from the surface, the cell holds no surface and its nodes are at least 1.5
// diagonals from it, so they are interpolated from the corners (the distance is
// 1-Lipschitz: error <= sqrt(3)/2 parent spacing; the winding number is harmonic off the
// surface). The other nodes' distances are queried exactly, and so are their winding
// numbers where the surface may cross the parent cell (a corner within half its diagonal
// of it) or the corners disagree on the side; elsewhere the cell holds no surface and the
// node lies on its corners' side, which the interpolated winding number keeps.
template <class Store>
void refine(const SampledLevel& parent, const Vec3& origin, double spacing,
            const ExactSamples& exact, Store&& store) {
  std::array<int, 3> counts;
  for (int a = 0; a < 3; ++a) counts[a] = 2 * (parent.counts[a] - 1) + 1;
  const double far = 2.0 * std::sqrt(3.0) * 2.0 * spacing;
  const double half_diagonal = std::sqrt(3.0) * spacing;
  std::vector<size_t> queried;
  std::vector<Vec3> points;
  std::vector<char> winding;
  std::vector<double> interpolated_winding;
  size_t n = 0;
  for (int k = 0; k < counts[2]; ++k)
    for (int j = 0; j < counts[1]; ++j)
      for (int i = 0; i < counts[0]; ++i, ++n) {
        const int node[3] = {i, j, k};
        if (i % 2 == 0 && j % 2 == 0 && k % 2 == 0) {
          store(n, parent.at(i / 2, j / 2, k / 2));
          continue;
        }
        const ParentCell cell = parent_cell(parent, node);
        if (cell.nearest_corner > far) {
          store(n, cell.interpolated);
          continue;
        }
        queried.push_back(n);
        points.push_back(
            {origin[0] + i * spacing, origin[1] + j * spacing, origin[2] + k * spacing});
        winding.push_back(!cell.one_side || cell.nearest_corner <= half_diagonal);
        interpolated_winding.push_back(cell.interpolated.winding);
      }
  const std::vector<MeshSample> answers = exact(points, winding);
  for (size_t q = 0; q < queried.size(); ++q)
    store(queried[q],
          {answers[q].distance, winding[q] ? answers[q].winding : interpolated_winding[q]});
}

}  // namespace

MeshShape::MeshShape(TriangleMesh mesh, double spacing, const MeshSampler& sampler)
    : mesh_(std::move(mesh)) {
  if (!(spacing > 0.0) || !std::isfinite(spacing))
    throw std::invalid_argument("MeshShape: the grid spacing must be positive and finite");
  if (mesh_.triangles.empty())
    throw std::invalid_argument("MeshShape: the mesh has no triangles");
  const auto [lo, hi] = mesh_.bounds();
  // In doubles until the cap is met: a fine spacing on a large mesh overflows an int.
  auto node_counts = [&](double h) {
    std::array<double, 3> counts;
    for (int a = 0; a < 3; ++a) {
      double needed = std::ceil((hi[a] - lo[a]) / h) + 1 + 2 * kPaddingNodes;
      // Whole coarse cells, so that every coarse node is also a node of this grid.
      counts[a] = kCoarseFactor * std::ceil((needed - 1) / kCoarseFactor) + 1;
    }
    return counts;
  };
  auto total = [](const std::array<double, 3>& c) { return c[0] * c[1] * c[2]; };
  while (total(node_counts(spacing)) > double(kMaxNodes))
    spacing *= std::max(1.01, std::cbrt(total(node_counts(spacing)) / double(kMaxNodes)));
  spacing_ = spacing;
  for (int a = 0; a < 3; ++a) counts_[a] = static_cast<int>(node_counts(spacing_)[a]);
  for (int a = 0; a < 3; ++a) origin_[a] = lo[a] - kPaddingNodes * spacing_;

  TriangleBvh bvh(mesh_);
  const ExactSamples exact = [&](const std::vector<Vec3>& points,
                                 const std::vector<char>& winding) {
    int nearest = -1;  // a neighbour's nearest triangle is the best guess for the next node's
    return sampler(points.size(), [&](size_t n) {
      return MeshSample{bvh.distance(points[n], nearest),
                        winding[n] ? bvh.winding_number(points[n]) : 0.0};
    });
  };
  // Every node of the grid kCoarseFactor = 4 times coarser exactly, then twice refined.
  SampledLevel coarse;
  std::vector<Vec3> points;
  for (int a = 0; a < 3; ++a) coarse.counts[a] = (counts_[a] - 1) / kCoarseFactor + 1;
  const double coarse_spacing = kCoarseFactor * spacing_;
  for (int k = 0; k < coarse.counts[2]; ++k)
    for (int j = 0; j < coarse.counts[1]; ++j)
      for (int i = 0; i < coarse.counts[0]; ++i)
        points.push_back({origin_[0] + i * coarse_spacing, origin_[1] + j * coarse_spacing,
                          origin_[2] + k * coarse_spacing});
  coarse.samples = exact(points, std::vector<char>(points.size(), 1));
  SampledLevel middle;
  for (int a = 0; a < 3; ++a) middle.counts[a] = (counts_[a] - 1) / 2 + 1;
  middle.samples.resize(size_t(middle.counts[0]) * middle.counts[1] * middle.counts[2]);
  refine(coarse, origin_, 2.0 * spacing_, exact,
         [&](size_t n, const MeshSample& s) { middle.samples[n] = s; });
  values_.resize(size_t(counts_[0]) * counts_[1] * counts_[2]);
  // Either orientation of the triangles counts: |w| is ~1 inside either way.
  refine(middle, origin_, spacing_, exact, [&](size_t n, const MeshSample& s) {
    values_[n] = static_cast<float>(std::abs(s.winding) > 0.5 ? -s.distance : s.distance);
  });
}

double MeshShape::interpolate(const Vec3& p) const {
  int base[3];
  double t[3];
  for (int a = 0; a < 3; ++a) {
    double f = (p[a] - origin_[a]) / spacing_;
    base[a] = std::clamp(static_cast<int>(std::floor(f)), 0, counts_[a] - 2);
    t[a] = f - base[a];
  }
  const size_t sx = 1, sy = size_t(counts_[0]), sz = sy * size_t(counts_[1]);
  const float* v = values_.data() + base[0] * sx + base[1] * sy + base[2] * sz;
  auto lerp = [](double a, double b, double s) { return a + s * (b - a); };
  double x00 = lerp(v[0], v[sx], t[0]);
  double x10 = lerp(v[sy], v[sy + sx], t[0]);
  double x01 = lerp(v[sz], v[sz + sx], t[0]);
  double x11 = lerp(v[sz + sy], v[sz + sy + sx], t[0]);
  return lerp(lerp(x00, x10, t[1]), lerp(x01, x11, t[1]), t[2]);
}

std::array<Vec3, 2> MeshShape::grid_box() const {
  Vec3 top;
  for (int a = 0; a < 3; ++a) top[a] = origin_[a] + (counts_[a] - 1) * spacing_;
  return {origin_, top};
}

double MeshShape::signed_distance(const Vec3& p) const {
  Vec3 q;
  double outside2 = 0.0;
  for (int a = 0; a < 3; ++a) {
    double top = origin_[a] + (counts_[a] - 1) * spacing_;
    q[a] = std::clamp(p[a], origin_[a], top);
    outside2 += (p[a] - q[a]) * (p[a] - q[a]);
  }
  return interpolate(q) + std::sqrt(outside2);
}

}  // namespace dunesim

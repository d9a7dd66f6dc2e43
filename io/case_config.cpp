// Case files: TOML text -> validated CaseConfig. Every user mistake becomes a CaseError that
// names the key by its full dotted path (e.g. "material[1].density") and, where the key
// exists in the file, its line, so a typo in a job script fails before any work is done.
#include "io/case_config.hpp"

#include <toml++/toml.h>

#include "decomposition/reductions.hpp"
#include "io/case_schema.hpp"
#include "io/input_file.hpp"
#include "io/triangle_mesh.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <limits>
#include <optional>
#include <sstream>

namespace dunesim {

namespace {

// Height of a heightfield at x (linear between profile points), or -1 outside its x range.
double profile_height_at(const ShapeSpec& s, double x) {
  const std::vector<double>& xs = s.profile_x;
  if (x < xs.front() || x > xs.back()) return -1.0;
  size_t n = size_t(std::upper_bound(xs.begin(), xs.end(), x) - xs.begin());
  if (n >= xs.size()) return s.profile_height.back();
  const double t = (x - xs[n - 1]) / (xs[n] - xs[n - 1]);
  return s.profile_height[n - 1] + t * (s.profile_height[n] - s.profile_height[n - 1]);
}

}  // namespace

void set_cell_size(CaseConfig& config, double cell_size) {
  config.cell_size = cell_size;
  for (int a = 0; a < 3; ++a)
    config.cells[a] = static_cast<int>(std::lround(config.domain_size[a] / cell_size));
}

namespace {

// A cylinder's distances outside its side (radial) and beyond its caps (axial): negative
// inside.
std::pair<double, double> cylinder_distances(const ShapeSpec& s, const Vec3& p) {
  const double radial = std::hypot(p[0] - s.center[0], p[1] - s.center[1]) - s.radius;
  const double axial = std::max(s.center[2] - p[2], p[2] - (s.center[2] + s.height));
  return {radial, axial};
}

}  // namespace

bool ShapeSpec::contains(const Vec3& p) const {
  if (kind == Kind::Mesh) return mesh->contains(p);
  if (kind == Kind::Cylinder) {
    const auto [radial, axial] = cylinder_distances(*this, p);
    return radial <= 0 && axial <= 0;
  }
  if (kind == Kind::Heightfield) return p[2] <= profile_height_at(*this, p[0]);
  if (kind == Kind::Sphere) {
    double d2 = 0.0;
    for (int a = 0; a < 3; ++a) d2 += (p[a] - center[a]) * (p[a] - center[a]);
    return d2 <= radius * radius;
  }
  for (int a = 0; a < 3; ++a)
    if (p[a] < min[a] || p[a] > max[a]) return false;
  return true;
}

std::array<Vec3, 2> ShapeSpec::bounding_box() const {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  switch (kind) {
    case Kind::Block: return {min, max};
    case Kind::Sphere:
      return {Vec3{center[0] - radius, center[1] - radius, center[2] - radius},
              Vec3{center[0] + radius, center[1] + radius, center[2] + radius}};
    case Kind::Cylinder:
      return {Vec3{center[0] - radius, center[1] - radius, center[2]},
              Vec3{center[0] + radius, center[1] + radius, center[2] + height}};
    case Kind::Mesh: return mesh->grid_box();
    case Kind::Heightfield: {
      const double top = *std::max_element(profile_height.begin(), profile_height.end());
      return {Vec3{profile_x.front(), -kInf, -kInf}, Vec3{profile_x.back(), kInf, top}};
    }
  }
  return {Vec3{-kInf, -kInf, -kInf}, Vec3{kInf, kInf, kInf}};
}

double ShapeSpec::signed_distance(const Vec3& p) const {
  if (kind == Kind::Mesh) return mesh->signed_distance(p);
  if (kind == Kind::Cylinder) {
    const auto [radial, axial] = cylinder_distances(*this, p);
    if (radial > 0 && axial > 0) return std::hypot(radial, axial);  // nearest: the rim
    return std::max(radial, axial);
  }
  if (kind == Kind::Heightfield) {
    const double h = profile_height_at(*this, p[0]);
    const double beyond = std::max(profile_x.front() - p[0], p[0] - profile_x.back());
    return h < 0 ? beyond : p[2] - h;
  }
  if (kind == Kind::Sphere) {
    double d2 = 0.0;
    for (int a = 0; a < 3; ++a) d2 += (p[a] - center[a]) * (p[a] - center[a]);
    return std::sqrt(d2) - radius;
  }
  // Per axis, the signed distance to the nearer of the two faces' slabs: positive outside.
  double outside2 = 0.0;
  double nearest_inside = -std::numeric_limits<double>::infinity();
  for (int a = 0; a < 3; ++a) {
    double d = std::max(min[a] - p[a], p[a] - max[a]);
    if (d > 0.0) outside2 += d * d;
    nearest_inside = std::max(nearest_inside, d);
  }
  return outside2 > 0.0 ? std::sqrt(outside2) : nearest_inside;
}

namespace {

// Guards the int cell counts (and any sane memory budget) against a mistyped cell size.
constexpr double kMaxCellsPerAxis = 1.0e6;
// All cells: twenty times dune.toml at its finest (1 mm, 5e8 cells), and small enough that
// the particle ids of pouring sources (8 per cell and step) fit in 64 bits for 1e8 steps.
constexpr double kMaxCells = 1.0e10;
// A case file is a page or two of TOML; anything near this is not one.
constexpr uint64_t kMaxCaseFileBytes = 16u << 20;
constexpr const char* kAxisNames[3] = {"x", "y", "z"};

// How the parser gets a mesh file's text: read_obj_text on this rank, or through rank 0
// (mesh_text_from_rank0). Throws MeshError, or SharedMeshError with rank 0's MeshError.
using MeshTextReader = std::function<std::string(const std::string& path)>;
// How the parser reaches mesh files: their text, and who runs the exact queries of their
// distance grids (this rank alone, or every rank a share: samples_split_over).
struct MeshAccess {
  MeshTextReader text;
  MeshSampler sampler = sample_here;
};
class SharedMeshError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string in_quotes(std::string_view text) {
  constexpr size_t kMaxShown = 40;
  if (text.size() > kMaxShown) return "\"" + std::string(text.substr(0, kMaxShown)) + "...\"";
  return "\"" + std::string(text) + "\"";
}

// "a string (\"abc\")", "an integer (3)", ...: the "got ..." half of a type error.
std::string describe(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string: return "a string (" + in_quotes(node.as_string()->get()) + ")";
    case toml::node_type::integer:
      return "an integer (" + std::to_string(node.as_integer()->get()) + ")";
    case toml::node_type::floating_point:
      return "a floating-point number (" + format_number(node.as_floating_point()->get()) + ")";
    case toml::node_type::boolean:
      return std::string("a boolean (") + (node.as_boolean()->get() ? "true" : "false") + ")";
    case toml::node_type::array:
      return "an array of " + std::to_string(node.as_array()->size()) + " element(s)";
    case toml::node_type::table: return "a table";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

[[noreturn]] void fail_at(const std::string& file, const std::string& path,
                          const toml::node* node, std::string problem) {
  if (node && node->source().begin.line > 0)
    problem += " (line " + std::to_string(node->source().begin.line) + ")";
  throw CaseError(file, path, problem);
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                  std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The known key a typo most likely meant, if any is close enough to be a useful hint.
std::optional<std::string_view> closest_key(std::string_view key,
                                            const std::vector<std::string_view>& known) {
  std::optional<std::string_view> best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (std::string_view candidate : known) {
    size_t d = edit_distance(key, candidate);
    if (d < best_distance && d <= std::max<size_t>(2, candidate.size() / 3)) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

// Passed as the default of a key that must be present.
constexpr std::nullopt_t kRequired = std::nullopt;

double to_number(const toml::node& node, const std::string& file, const std::string& path) {
  // TOML distinguishes 1 from 1.0; a case file author should not have to.
  if (auto i = node.as_integer()) return static_cast<double>(i->get());
  auto f = node.as_floating_point();
  if (!f) fail_at(file, path, &node, "expected a number, got " + describe(node));
  if (!std::isfinite(f->get()))
    fail_at(file, path, &node, "expected a finite number, got " + describe(node));
  return f->get();
}

// One TOML table with its dotted path. A table absent from the file is represented by a
// null table, so optional sections read exactly like present ones with every key defaulted.
class Table {
 public:
  Table(const toml::table* table, std::string path, const std::string& file)
      : table_(table), path_(std::move(path)), file_(&file) {}

  std::string key_path(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }
  const toml::node* find(std::string_view key) const {
    return table_ ? table_->get(key) : nullptr;
  }
  bool has(std::string_view key) const { return find(key) != nullptr; }
  // The schema's section of this table: its path without an array index ("material[2]" is a
  // "material").
  std::string_view section() const { return std::string_view(path_).substr(0, path_.find('[')); }

  [[noreturn]] void fail(std::string_view key, const std::string& problem) const {
    fail_at(*file_, key_path(key), find(key), problem);
  }
  // An error about the table as a whole (e.g. a source block lying outside the domain).
  [[noreturn]] void fail_table(const std::string& problem) const {
    fail_at(*file_, path_, table_, problem);
  }

  // Rejects every key not in `known`, naming the closest known spelling or all of them.
  void allow_only(const std::vector<std::string_view>& known) const {
    if (!table_) return;
    for (auto&& [key, node] : *table_) {
      std::string_view name = key.str();
      if (std::find(known.begin(), known.end(), name) != known.end()) continue;
      std::string problem = "unknown key";
      if (auto guess = closest_key(name, known)) {
        problem += "; did you mean '" + std::string(*guess) + "'?";
      } else {
        problem += "; allowed keys here are";
        for (std::string_view k : known) problem += " '" + std::string(k) + "'";
      }
      fail(name, problem);
    }
  }

  Table table(std::string_view key) const {
    const toml::node* node = find(key);
    if (!node) return Table(nullptr, key_path(key), *file_);
    if (!node->is_table()) fail(key, "expected a table, got " + describe(*node));
    return Table(node->as_table(), key_path(key), *file_);
  }

  // The entries of [[key]], each with path "key[i]" (counted from 0).
  std::vector<Table> table_array(std::string_view key) const {
    std::vector<Table> entries;
    const toml::node* node = find(key);
    if (!node) return entries;
    const toml::array* array = node->as_array();
    if (!array) {
      fail(key,
           "expected an array of tables ([[" + std::string(key) + "]]), got " + describe(*node));
    }
    for (size_t i = 0; i < array->size(); ++i) {
      std::string path = key_path(key) + "[" + std::to_string(i) + "]";
      const toml::node& entry = *array->get(i);
      if (!entry.is_table())
        fail_at(*file_, path, &entry, "expected a table, got " + describe(entry));
      entries.emplace_back(entry.as_table(), path, *file_);
    }
    return entries;
  }

  // A number within the schema's range for the key.
  double number(std::string_view key, std::optional<double> fallback) const {
    const Range& range = key_range(section(), key);
    const toml::node* node = find(key);
    if (!node) return default_value(key, fallback);
    double value = to_number(*node, *file_, key_path(key));
    if (!range.contains(value))
      fail(key, "expected a value " + range.describe() + ", got " + format_number(value));
    return value;
  }

  // A whole number within the schema's range for the key.
  int64_t integer(std::string_view key, std::optional<int64_t> fallback) const {
    const Range& range = key_range(section(), key);
    const int64_t lo = int64_t(range.lo);
    const int64_t hi =
        std::isinf(range.hi) ? std::numeric_limits<int64_t>::max() : int64_t(range.hi);
    const toml::node* node = find(key);
    if (!node) return default_value(key, fallback);
    auto i = node->as_integer();
    if (!i) fail(key, "expected an integer, got " + describe(*node));
    if (i->get() < lo || i->get() > hi) {
      fail(key, "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                    "], got " + std::to_string(i->get()));
    }
    return i->get();
  }

  bool boolean(std::string_view key, bool fallback) const {
    const toml::node* node = find(key);
    if (!node) return fallback;
    auto b = node->as_boolean();
    if (!b) fail(key, "expected a boolean (true or false), got " + describe(*node));
    return b->get();
  }

  std::string string(std::string_view key, std::optional<std::string> fallback) const {
    const toml::node* node = find(key);
    if (!node) return default_value(key, fallback);
    auto s = node->as_string();
    if (!s) fail(key, "expected a string, got " + describe(*node));
    return s->get();
  }

  std::string non_empty_string(std::string_view key, std::optional<std::string> fallback) const {
    std::string value = string(key, std::move(fallback));
    if (value.empty()) fail(key, "expected a non-empty string, got \"\"");
    return value;
  }

  // A string that must be one of `options`.
  std::string choice(std::string_view key,
                     std::initializer_list<std::string_view> options) const {
    std::string value = string(key, kRequired);
    if (std::find(options.begin(), options.end(), value) != options.end()) return value;
    std::string expected;
    for (std::string_view o : options)
      expected += (expected.empty() ? "" : " or ") + in_quotes(o);
    fail(key, "expected " + expected + ", got " + in_quotes(value));
  }

  // An array of distinct strings, each one of `options`; empty when the key is absent.
  std::vector<std::string> choices(std::string_view key,
                                   std::initializer_list<std::string_view> options) const {
    std::vector<std::string> values;
    const toml::node* node = find(key);
    if (!node) return values;
    std::string expected;
    for (std::string_view o : options) expected += (expected.empty() ? "" : ", ") + in_quotes(o);
    const toml::array* array = node->as_array();
    if (!array)
      fail(key, "expected an array of strings from " + expected + ", got " + describe(*node));
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      const std::string path = key_path(key) + "[" + std::to_string(i) + "]";
      auto text = element.as_string();
      if (!text || std::find(options.begin(), options.end(), text->get()) == options.end())
        fail_at(*file_, path, &element,
                "expected one of " + expected + ", got " + describe(element));
      if (std::find(values.begin(), values.end(), text->get()) != values.end())
        fail_at(*file_, path, &element, in_quotes(text->get()) + " is listed twice");
      values.push_back(text->get());
    }
    return values;
  }

  // [x, y, z]; each component within the schema's range for the key.
  Vec3 vec3(std::string_view key, std::optional<Vec3> fallback) const {
    const Range& range = key_range(section(), key);
    const toml::node* node = find(key);
    if (!node) return default_value(key, fallback);
    const toml::array* array = node->as_array();
    if (!array || array->size() != 3)
      fail(key, "expected an array of 3 numbers [x, y, z], got " + describe(*node));
    Vec3 v;
    for (int a = 0; a < 3; ++a) {
      std::string path = key_path(key) + "[" + std::to_string(a) + "]";
      const toml::node& element = *array->get(a);
      v[a] = to_number(element, *file_, path);
      if (!range.contains(v[a])) {
        fail_at(*file_, path, &element,
                "expected a value " + range.describe() + ", got " + format_number(v[a]));
      }
    }
    return v;
  }

  // An array of at least `min_count` numbers, each within the schema's range for the key.
  std::vector<double> numbers(std::string_view key, size_t min_count) const {
    const Range& range = key_range(section(), key);
    const toml::node* node = find(key);
    if (!node) throw CaseError(*file_, key_path(key), "required key is missing");
    const toml::array* array = node->as_array();
    if (!array || array->size() < min_count)
      fail(key, "expected an array of at least " + std::to_string(min_count) + " numbers, got " +
                    describe(*node));
    std::vector<double> values;
    for (size_t n = 0; n < array->size(); ++n) {
      std::string path = key_path(key) + "[" + std::to_string(n) + "]";
      const toml::node& element = *array->get(n);
      values.push_back(to_number(element, *file_, path));
      if (!range.contains(values.back()))
        fail_at(*file_, path, &element,
                "expected a value " + range.describe() + ", got " + format_number(values.back()));
    }
    return values;
  }

  // Rejects keys of this table's schema that belong to another variant than the one
  // chosen (sand-only keys on water, sphere keys on a block): they would be ignored.
  void forbid(const std::vector<std::string_view>& keys, const std::string& needed,
              const std::string& chosen) const {
    for (std::string_view key : keys)
      if (has(key)) fail(key, "only used when " + needed + ", but this has " + chosen);
  }

 private:
  // The value of an absent key: its default, or an error when it has none.
  template <class T>
  T default_value(std::string_view key, const std::optional<T>& fallback) const {
    if (!fallback) throw CaseError(*file_, key_path(key), "required key is missing");
    return *fallback;
  }

  const toml::table* table_;
  std::string path_;
  const std::string* file_;
};

// The domain [0, size] as a block, for overlap tests.
ShapeSpec domain_block(const Vec3& size) {
  ShapeSpec box;
  box.kind = ShapeSpec::Kind::Block;
  box.max = size;
  return box;
}

// Loads, places and samples the mesh of a shape = "mesh" table.
void read_mesh(const Table& t, const CaseConfig& cfg, const MeshAccess& meshes,
               ShapeSpec& shape) {
  shape.kind = ShapeSpec::Kind::Mesh;
  std::string file = t.non_empty_string("file", kRequired);
  shape.scale = t.number("scale", shape.scale);
  shape.translate = t.vec3("translate", shape.translate);
  // Relative to the case file, so that a case and its meshes can move together.
  std::filesystem::path path(file);
  if (path.is_relative()) path = std::filesystem::path(cfg.file).parent_path() / path;
  shape.mesh_file = path.lexically_normal().string();
  TriangleMesh mesh;
  try {
    mesh = parse_obj(meshes.text(shape.mesh_file), shape.mesh_file);
  } catch (const MeshError& e) {
    t.fail("file", std::string("mesh ") + e.what());
  } catch (const SharedMeshError& e) { t.fail("file", std::string("mesh ") + e.what()); }
  mesh.transform(shape.scale, shape.translate);

  // A flat surface bounds no solid, so it would seed and block nothing.
  const auto [lo, hi] = mesh.bounds();
  double extent = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
  if (!(std::abs(mesh.signed_volume()) > 1e-9 * extent * extent * extent))
    t.fail("file", "mesh " + shape.mesh_file + " encloses no volume; a closed surface is needed");
  for (int a = 0; a < 3; ++a) {
    if (hi[a] <= 0.0 || lo[a] >= cfg.domain_size[a]) {
      t.fail_table(std::string("the mesh lies outside the domain along ") + kAxisNames[a] +
                   ": after scale and translate it spans [" + format_number(lo[a]) + ", " +
                   format_number(hi[a]) + "], which does not overlap [0, " +
                   format_number(cfg.domain_size[a]) + "]");
    }
  }
  // Half a cell: the solid mask samples cell centres and particles are pushed out along the
  // gradient, both of which need the surface resolved finer than the cells.
  shape.mesh =
      std::make_shared<const MeshShape>(std::move(mesh), 0.5 * cfg.cell_size, meshes.sampler);
}

// The keys each shape takes. A key of another shape would be ignored, so it is an error.
const std::pair<std::string_view, std::vector<std::string_view>> kShapeKeys[] = {
    {"block", {"min", "max"}},
    {"sphere", {"center", "radius"}},
    {"cylinder", {"center", "radius", "height"}},
    {"mesh", {"file", "scale", "translate"}},
    {"heightfield", {"profile_x", "profile_height"}},
};

bool shape_takes(std::string_view kind, std::string_view key) {
  for (const auto& [shape, keys] : kShapeKeys)
    if (shape == kind) return std::find(keys.begin(), keys.end(), key) != keys.end();
  return false;
}

void forbid_keys_of_other_shapes(const Table& t, std::string_view kind) {
  for (const auto& [other, keys] : kShapeKeys) {
    for (std::string_view key : keys) {
      if (shape_takes(kind, key) || !t.has(key)) continue;
      std::string takers;
      for (const auto& [shape, unused] : kShapeKeys)
        if (shape_takes(shape, key))
          takers += (takers.empty() ? "shape = " : " or ") + in_quotes(shape);
      t.fail(key, "only used when " + takers + ", but this has shape = " + in_quotes(kind));
    }
  }
}

// Whether the box around an upright cylinder overlaps the domain.
bool overlaps_domain(const ShapeSpec& cylinder, const CaseConfig& cfg) {
  const Vec3& c = cylinder.center;
  const double r = cylinder.radius;
  return c[0] + r > 0 && c[0] - r < cfg.domain_size[0] && c[1] + r > 0 &&
         c[1] - r < cfg.domain_size[1] && c[2] + cylinder.height > 0 && c[2] < cfg.domain_size[2];
}

// Reads the shape keys shared by [[source]] and [[collider]] and checks that the shape
// reaches into the domain: a shape entirely outside would silently do nothing.
ShapeSpec read_shape(const Table& t, const CaseConfig& cfg, const MeshAccess& meshes) {
  const Vec3& domain_size = cfg.domain_size;
  ShapeSpec shape;
  const std::string kind =
      t.choice("shape", {"block", "sphere", "cylinder", "mesh", "heightfield"});
  forbid_keys_of_other_shapes(t, kind);
  if (kind == "block") {
    shape.kind = ShapeSpec::Kind::Block;
    shape.min = t.vec3("min", kRequired);
    shape.max = t.vec3("max", kRequired);
    for (int a = 0; a < 3; ++a) {
      if (!(shape.min[a] < shape.max[a])) {
        t.fail("max", "expected max > min on every axis, got max[" + std::to_string(a) +
                          "] = " + format_number(shape.max[a]) + " <= min[" + std::to_string(a) +
                          "] = " + format_number(shape.min[a]));
      }
    }
    for (int a = 0; a < 3; ++a) {
      if (shape.max[a] <= 0.0 || shape.min[a] >= domain_size[a]) {
        t.fail_table(std::string("the block lies outside the domain along ") + kAxisNames[a] +
                     ": [" + format_number(shape.min[a]) + ", " + format_number(shape.max[a]) +
                     "] does not overlap [0, " + format_number(domain_size[a]) + "]");
      }
    }
  } else if (kind == "sphere") {
    shape.kind = ShapeSpec::Kind::Sphere;
    shape.center = t.vec3("center", kRequired);
    shape.radius = t.number("radius", kRequired);
    if (domain_block(domain_size).signed_distance(shape.center) >= shape.radius)
      t.fail_table("the sphere lies entirely outside the domain");
  } else if (kind == "cylinder") {
    shape.kind = ShapeSpec::Kind::Cylinder;
    shape.center = t.vec3("center", kRequired);
    shape.radius = t.number("radius", kRequired);
    shape.height = t.number("height", kRequired);
    if (!overlaps_domain(shape, cfg))
      t.fail_table("the cylinder lies entirely outside the domain");
  } else if (kind == "heightfield") {
    shape.kind = ShapeSpec::Kind::Heightfield;
    shape.profile_x = t.numbers("profile_x", 2);
    shape.profile_height = t.numbers("profile_height", 2);
    if (shape.profile_height.size() != shape.profile_x.size())
      t.fail("profile_height", "expected as many heights as profile_x has points (" +
                                   std::to_string(shape.profile_x.size()) + "), got " +
                                   std::to_string(shape.profile_height.size()));
    for (size_t n = 1; n < shape.profile_x.size(); ++n)
      if (!(shape.profile_x[n] > shape.profile_x[n - 1]))
        t.fail("profile_x", "expected increasing x, got " + format_number(shape.profile_x[n]) +
                                " after " + format_number(shape.profile_x[n - 1]));
    if (shape.profile_x.back() <= 0.0 || shape.profile_x.front() >= domain_size[0])
      t.fail_table("the heightfield lies outside the domain along x");
  } else {
    read_mesh(t, cfg, meshes, shape);
  }
  return shape;
}

void read_domain(const Table& root, CaseConfig& cfg) {
  Table domain = root.table("domain");
  domain.allow_only(keys_of("domain"));
  cfg.domain_size = domain.vec3("size", kRequired);
  cfg.cell_size = domain.number("cell_size", kRequired);
  cfg.wall_friction = domain.number("wall_friction", cfg.wall_friction);
  for (const std::string& wall :
       domain.choices("frictionless_walls", {"x-", "x+", "y-", "y+", "z-", "z+"}))
    cfg.frictionless_wall[wall_index(wall)] = true;
  for (int a = 0; a < 3; ++a) {
    double size = cfg.domain_size[a];
    double count = std::round(size / cfg.cell_size);
    std::string along =
        std::string(" along ") + kAxisNames[a] + " (size " + format_number(size) + " m)";
    if (count < 4)
      domain.fail("cell_size", "gives " + format_number(count) + " cell(s)" + along +
                                   "; at least 4 are needed");
    if (count > kMaxCellsPerAxis)
      domain.fail("cell_size", "gives " + format_number(count) + " cells" + along + "; at most " +
                                   format_number(kMaxCellsPerAxis) + " are allowed");
    if (!(std::abs(count * cfg.cell_size - size) < 1e-6 * size)) {
      domain.fail("cell_size", "size[" + std::to_string(a) + "] = " + format_number(size) +
                                   " m is not a whole number of cells of " +
                                   format_number(cfg.cell_size) + " m (" +
                                   format_number(size / cfg.cell_size) + " cells)");
    }
  }
  set_cell_size(cfg, cfg.cell_size);
  const double total = double(cfg.cells[0]) * cfg.cells[1] * cfg.cells[2];
  if (total > kMaxCells)
    domain.fail("cell_size", "gives " + std::to_string(cfg.cells[0]) + " x " +
                                 std::to_string(cfg.cells[1]) + " x " +
                                 std::to_string(cfg.cells[2]) + " = " + format_number(total) +
                                 " cells; at most " + format_number(kMaxCells) + " are allowed");
}

// How the pore water flows, and Richards' soil model. The diffusion model's capillary rate
// means nothing to Richards' equation, whose suction comes from the retention curve.
void read_pore_flow(const Table& m, WetSandSpec& wet) {
  const bool richards =
      m.has("pore_flow") && m.choice("pore_flow", {"diffusion", "richards"}) == "richards";
  const char* richards_keys[] = {"van_genuchten_alpha", "van_genuchten_n", "residual_saturation",
                                 "specific_storage", "pore_flow_interval"};
  if (!richards) {
    for (std::string_view key : richards_keys)
      if (m.has(key)) m.fail(key, "applies to pore_flow = \"richards\" only");
    return;
  }
  wet.pore_flow = PoreFlow::Richards;
  if (m.has("propagation_rate"))
    m.fail("propagation_rate",
           "applies to pore_flow = \"diffusion\" only: Richards' suction comes from "
           "van_genuchten_alpha and van_genuchten_n");
  if (wet.conductivity <= 0)
    m.fail("conductivity",
           "must be > 0 with pore_flow = \"richards\" (the saturated "
           "hydraulic conductivity K_s, m/s; sand: about 8e-5)");
  wet.van_genuchten_alpha = m.number("van_genuchten_alpha", wet.van_genuchten_alpha);
  wet.van_genuchten_n = m.number("van_genuchten_n", wet.van_genuchten_n);
  wet.residual_saturation = m.number("residual_saturation", wet.residual_saturation);
  wet.specific_storage = m.number("specific_storage", wet.specific_storage);
  wet.pore_flow_interval = m.number("pore_flow_interval", wet.pore_flow_interval);
}

// What soaking does to the friction. The effective stress needs the pore water's pressure,
// which only Richards' equation gives.
void read_soaked_friction(const Table& m, WetSandSpec& wet) {
  if (!m.has("soaked_friction") ||
      m.choice("soaked_friction", {"mud", "effective_stress"}) == "mud")
    return;
  if (wet.pore_flow != PoreFlow::Richards)
    m.fail("soaked_friction",
           "\"effective_stress\" needs pore_flow = \"richards\" (the pore water's pressure "
           "comes from Richards' heads)");
  wet.soaked_friction = SoakedFriction::EffectiveStress;
}

// The wet-sand keys of a sand material. Without a porosity the sand holds no water, and a
// key that only matters for water in the pores is a mistake worth reporting.
WetSandSpec read_wet_sand(const Table& m) {
  WetSandSpec wet;
  wet.porosity = m.number("porosity", 0.0);
  if (!wet.holds_water()) {
    for (std::string_view key :
         {"ideal_saturation", "c_wet", "mud_viscosity", "propagation_rate", "conductivity",
          "saturation", "pore_flow", "van_genuchten_alpha", "van_genuchten_n",
          "residual_saturation", "specific_storage", "pore_flow_interval", "soaked_friction"})
      if (m.has(key)) m.fail(key, "needs a porosity > 0 (the sand holds no water without one)");
    return wet;
  }
  wet.ideal_saturation = m.number("ideal_saturation", wet.ideal_saturation);
  wet.cohesion_wet = m.number("c_wet", 0.0);
  wet.mud_viscosity = m.number("mud_viscosity", 0.0);
  wet.propagation_rate = m.number("propagation_rate", 0.0);
  wet.conductivity = m.number("conductivity", 0.0);
  wet.initial_saturation = m.number("saturation", 0.0);
  read_pore_flow(m, wet);
  read_soaked_friction(m, wet);
  return wet;
}

const std::initializer_list<std::string_view> kSandRheologies = {"zhu_bridson", "mu_i",
                                                                 "elastic_plastic",
                                                                 "rigid_plastic"};

// The rheologies whose sand carries its weight with a stress of its own, without the rigid
// cells of Zhu & Bridson's yield test: the keys of those cells do not apply to them.
bool carries_own_stress(std::string_view rheology) {
  return rheology == "elastic_plastic" || rheology == "rigid_plastic";
}

// The material's `rheology`, Zhu & Bridson's by default.
std::string rheology_name(const Table& m) {
  return m.has("rheology") ? std::string(m.choice("rheology", kSandRheologies)) : "zhu_bridson";
}

// The sand keys of one rheology given to a sand of another (case_schema.hpp): they would be
// ignored.
void refuse_keys_of_other_rheologies(const Table& m) {
  const std::string rheology = rheology_name(m);
  for (const CaseKey& row : case_schema()) {
    if (row.section != "material" || row.rheologies.empty()) continue;
    if (std::find(row.rheologies.begin(), row.rheologies.end(), rheology) != row.rheologies.end())
      continue;
    for (std::string_view key : row.names) {
      if (!m.has(key)) continue;
      std::string allowed;
      for (std::string_view r : row.rheologies)
        allowed += (allowed.empty() ? "" : " or ") + in_quotes(r);
      const std::string why =
          row.why_not_other_rheologies.empty()
              ? ""
              : " (" + rheology + " " + std::string(row.why_not_other_rheologies) + ")";
      m.fail(key, "applies to rheology = " + allowed + " only" + why);
    }
  }
}

// The defaults of the material's `model` key (sand_model_defaults, src/sand/sand_parameters.hpp).
SandModelDefaults read_sand_model(const Table& m, const Vec3& gravity) {
  const bool zhu_bridson_rheology = rheology_name(m) == "zhu_bridson";
  const bool paper_model =
      m.has("model") && m.choice("model", {"validated", "zhu_bridson_2005"}) != "validated";
  return sand_model_defaults(zhu_bridson_rheology, paper_model, gravity);
}

// The rheology keys of a sand material; each rheology's own parameters only with it.
SandRheology read_sand_rheology(const Table& m, double friction_angle_deg,
                                const SandModelDefaults& model) {
  SandRheology r;
  const std::string kind = rheology_name(m);
  const bool carries_stress = carries_own_stress(kind);
  r.surface_static_friction =
      !carries_stress && m.boolean("surface_static_friction", r.surface_static_friction);
  r.rigid_cells_own_velocity =
      m.has("rigid_cell_velocity")
          ? m.choice("rigid_cell_velocity", {"interpolated", "own_cell"}) == "own_cell"
          : model.rigid_cells_own_velocity;
  r.steep_surface_yields = !carries_stress && m.boolean("steep_surface_yields", false);
  r.culmann_wedges_yield =
      !carries_stress && m.boolean("culmann_wedges_yield", model.culmann_wedges_yield);
  r.resting_grains_hold =
      !carries_stress && m.boolean("resting_grains_hold", model.resting_grains_hold);
  if (kind == "zhu_bridson") {
    if (m.has("yield_surface") &&
        m.choice("yield_surface", {"drucker_prager", "mohr_coulomb"}) == "mohr_coulomb")
      r.yield_surface = SandRheology::YieldSurface::MohrCoulomb;
    return r;
  }
  if (kind == "rigid_plastic") {
    r.kind = SandRheology::Kind::RigidPlastic;
    return r;
  }
  if (kind == "elastic_plastic") {
    r.kind = SandRheology::Kind::ElasticPlastic;
    r.shear_modulus = m.number("shear_modulus", r.shear_modulus);
    return r;
  }
  r.kind = SandRheology::Kind::MuOfI;
  r.dynamic_friction_angle_deg =
      m.number("friction_angle_dynamic",
               std::max(friction_angle_deg, r.dynamic_friction_angle_deg));
  if (r.dynamic_friction_angle_deg < friction_angle_deg)
    m.fail("friction_angle_dynamic", "expected at least friction_angle (" +
                                         format_number(friction_angle_deg) + "), got " +
                                         format_number(r.dynamic_friction_angle_deg));
  r.inertial_number_i0 = m.number("i0", r.inertial_number_i0);
  r.grain_diameter = m.number("grain_diameter", r.grain_diameter);
  r.grain_density = m.number("grain_density", r.grain_density);
  return r;
}

// friction_substeps, for the rheologies that apply a frictional stress once per step; 0
// (absent) leaves the choice to the transfer (friction_substeps(), src/sand/sand_plasticity.hpp).
int read_friction_substeps(const Table& m) {
  return static_cast<int>(m.integer("friction_substeps", 0));
}

// Several sand materials share one model: each cell mixes their strengths (friction angle,
// cohesion, c_wet) and densities by mass (src/sand/sand_strength.hpp) and holds water in
// each particle's own pores (porosity; src/particles/pore_water.hpp), while the rheology,
// the transfer and the water's way through the pores are the first sand material's. A
// rheology with a stress of its own (elastic_plastic, rigid_plastic) takes one material.
void require_one_sand_model(const std::vector<Table>& entries,
                            const std::vector<MaterialSpec>& materials) {
  const MaterialSpec* first = nullptr;
  for (size_t n = 0; n < materials.size(); ++n) {
    const MaterialSpec& m = materials[n];
    if (m.kind != MaterialKind::Sand) continue;
    if (!first) {
      first = &m;
      continue;
    }
    const Table& t = entries[n];
    const SandRheology &a = first->rheology, &b = m.rheology;
    const WetSandSpec &wa = first->wet, &wb = m.wet;
    using Kind = SandRheology::Kind;
    if (a.kind == Kind::ElasticPlastic || a.kind == Kind::RigidPlastic || a.kind != b.kind)
      t.fail("rheology",
             "several sand materials need one rheology, \"zhu_bridson\" or "
             "\"mu_i\", whose cells mix the materials' strengths (sand material " +
                 in_quotes(first->name) + " comes first)");
    if (wa.holds_water() != wb.holds_water())
      t.fail("porosity", std::string("must be > 0 in every sand material or in none (sand "
                                     "material ") +
                             in_quotes(first->name) + (wa.holds_water() ? " has " : " has no ") +
                             "porosity): several sand materials share one flow of pore water");
    const std::pair<const char*, bool> shared[] = {
        {"transfer", first->transfer == m.transfer},
        {"flip_ratio", first->flip_ratio == m.flip_ratio},
        {"yield_surface", a.yield_surface == b.yield_surface},
        {"surface_static_friction", a.surface_static_friction == b.surface_static_friction},
        {"rigid_cell_velocity", a.rigid_cells_own_velocity == b.rigid_cells_own_velocity},
        {"steep_surface_yields", a.steep_surface_yields == b.steep_surface_yields},
        {"culmann_wedges_yield", a.culmann_wedges_yield == b.culmann_wedges_yield},
        {"resting_grains_hold", a.resting_grains_hold == b.resting_grains_hold},
        {"friction_substeps", a.friction_substeps == b.friction_substeps},
        {"friction_angle_dynamic", a.dynamic_friction_angle_deg == b.dynamic_friction_angle_deg},
        {"i0", a.inertial_number_i0 == b.inertial_number_i0},
        {"grain_diameter", a.grain_diameter == b.grain_diameter},
        {"grain_density", a.grain_density == b.grain_density},
        {"ideal_saturation", wa.ideal_saturation == wb.ideal_saturation},
        {"mud_viscosity", wa.mud_viscosity == wb.mud_viscosity},
        {"propagation_rate", wa.propagation_rate == wb.propagation_rate},
        {"conductivity", wa.conductivity == wb.conductivity},
        {"pore_flow", wa.pore_flow == wb.pore_flow},
        {"van_genuchten_alpha", wa.van_genuchten_alpha == wb.van_genuchten_alpha},
        {"van_genuchten_n", wa.van_genuchten_n == wb.van_genuchten_n},
        {"residual_saturation", wa.residual_saturation == wb.residual_saturation},
        {"specific_storage", wa.specific_storage == wb.specific_storage},
        {"pore_flow_interval", wa.pore_flow_interval == wb.pore_flow_interval},
        {"soaked_friction", wa.soaked_friction == wb.soaked_friction}};
    for (const auto& [key, same] : shared)
      if (!same)
        t.fail(key, "must be the same as in sand material " + in_quotes(first->name) +
                        ": several sand materials share one model and one flow of pore "
                        "water, and differ only in density, friction_angle, cohesion, c_wet, "
                        "porosity and saturation");
  }
}

void read_materials(const Table& root, CaseConfig& cfg) {
  std::vector<Table> entries = root.table_array("material");
  if (entries.empty())
    throw CaseError(cfg.file, "material", "at least one [[material]] table is required");
  for (const Table& m : entries) {
    m.allow_only(keys_of("material"));
    MaterialSpec spec;
    spec.name = m.non_empty_string("name", kRequired);
    for (const MaterialSpec& earlier : cfg.materials)
      if (earlier.name == spec.name)
        m.fail("name", "material " + in_quotes(spec.name) + " is defined twice");
    bool sand = m.choice("kind", {"water", "sand"}) == "sand";
    spec.kind = sand ? MaterialKind::Sand : MaterialKind::Water;
    SandModelDefaults model;
    spec.density = m.number("density", sand ? 1600.0 : 1000.0);
    if (sand) {
      spec.friction_angle_deg = m.number("friction_angle", 30.0);
      if (m.has("cohesion") && m.has("c_dry"))
        m.fail("c_dry", "is another name for 'cohesion'; give one of them");
      spec.cohesion = m.number(m.has("c_dry") ? "c_dry" : "cohesion", 0.0);
      spec.wet = read_wet_sand(m);
      refuse_keys_of_other_rheologies(m);
      model = read_sand_model(m, cfg.gravity);
      spec.rheology = read_sand_rheology(m, spec.friction_angle_deg, model);
      // The wedge test compares planes with the columns' tops, so "down" must be -z.
      const Vec3& g = cfg.gravity;
      if (spec.rheology.culmann_wedges_yield && !(g[2] < 0 && g[0] == 0 && g[1] == 0))
        m.fail("culmann_wedges_yield", "needs [physics] gravity along -z, got (" +
                                           format_number(g[0]) + ", " + format_number(g[1]) +
                                           ", " + format_number(g[2]) + ")");
    }
    // Under PIC/FLIP, mostly PIC suits Zhu & Bridson's sand (thesis 3.2; the validated model
    // takes APIC instead); elastic-plastic sand takes small steps, at which PIC's damping
    // would be a strong viscosity (docs/findings/elastic_plastic_sand.md).
    const bool mostly_pic = sand && rheology_name(m) != "elastic_plastic";
    // A flip_ratio without a transfer asks for PIC/FLIP whatever the model's default.
    const std::string transfer = m.has("transfer")
                                     ? m.choice("transfer", {"flip", "apic", "rpic"})
                                 : model.apic && !m.has("flip_ratio") ? "apic"
                                                                      : "flip";
    spec.transfer = transfer == "apic"   ? Transfer::Apic
                    : transfer == "rpic" ? Transfer::Rpic
                                         : Transfer::Flip;
    if (spec.transfer != Transfer::Flip && m.has("flip_ratio"))
      m.fail("flip_ratio", "applies to transfer = \"flip\" only (this material's is " +
                               in_quotes(transfer) + ")");
    spec.flip_ratio = m.number("flip_ratio", mostly_pic ? 0.05 : 0.95);
    if (sand) spec.rheology.friction_substeps = read_friction_substeps(m);
    if (!sand) m.forbid(material_keys_of_kind("sand"), "kind = \"sand\"", "kind = \"water\"");
    cfg.materials.push_back(spec);
  }
  require_one_sand_model(entries, cfg.materials);
  // Pore water weighs what the case's water weighs.
  for (const MaterialSpec& water : cfg.materials) {
    if (water.kind != MaterialKind::Water) continue;
    for (MaterialSpec& sand : cfg.materials) sand.wet.pore_water_density = water.density;
    break;
  }
}

// A rain source: water falling from a block for a time.
void read_rain(const Table& s, const MaterialSpec& made_of, SourceSpec& spec) {
  if (made_of.kind != MaterialKind::Water)
    s.fail("rain_rate", "rain is water: material " + in_quotes(made_of.name) + " is not");
  if (spec.shape.kind != ShapeSpec::Kind::Block)
    s.fail("rain_rate", "rain falls from a block: needs shape = \"block\"");
  if (spec.emit_until <= 0) s.fail("rain_rate", "needs emit_until, the time the rain stops (s)");
  spec.rain_rate = s.number("rain_rate", kRequired);
}

void read_sources(const Table& root, CaseConfig& cfg, const MeshAccess& meshes) {
  std::vector<Table> entries = root.table_array("source");
  if (entries.empty())
    throw CaseError(cfg.file, "source", "at least one [[source]] table is required");
  for (const Table& s : entries) {
    s.allow_only(keys_of("source"));
    SourceSpec spec;
    std::string material = s.string("material", kRequired);
    auto found = std::find_if(cfg.materials.begin(), cfg.materials.end(),
                              [&](const MaterialSpec& m) { return m.name == material; });
    if (found == cfg.materials.end()) {
      std::string defined;
      for (const MaterialSpec& m : cfg.materials)
        defined += (defined.empty() ? "" : ", ") + in_quotes(m.name);
      s.fail("material",
             "no [[material]] named " + in_quotes(material) + " (defined: " + defined + ")");
    }
    spec.material = static_cast<int>(found - cfg.materials.begin());
    spec.shape = read_shape(s, cfg, meshes);
    spec.velocity = s.vec3("velocity", Vec3{0.0, 0.0, 0.0});
    if (s.has("emit_until")) spec.emit_until = s.number("emit_until", kRequired);
    const MaterialSpec& made_of = *found;
    spec.saturation = made_of.wet.initial_saturation;
    if (s.has("saturation")) {
      if (!made_of.wet.holds_water())
        s.fail("saturation", "needs a sand material with a porosity > 0 (material " +
                                 in_quotes(made_of.name) + " holds no water)");
      spec.saturation = s.number("saturation", kRequired);
    }
    if (s.has("rain_rate")) read_rain(s, made_of, spec);
    cfg.sources.push_back(spec);
  }
}

void read_colliders(const Table& root, CaseConfig& cfg, const MeshAccess& meshes) {
  for (const Table& c : root.table_array("collider")) {
    c.allow_only(keys_of("collider"));
    ColliderSpec spec;
    spec.shape = read_shape(c, cfg, meshes);
    spec.friction = c.number("friction", 0.0);
    cfg.colliders.push_back(spec);
  }
}

// [catalyst]: pipeline script paths are relative to the case file, like mesh files.

void read_catalyst(const Table& root, CaseConfig& cfg) {
  Table catalyst = root.table("catalyst");
  catalyst.allow_only(keys_of("catalyst"));
  cfg.catalyst.interval_steps = catalyst.integer("interval_steps", cfg.catalyst.interval_steps);
  cfg.catalyst.particle_stride =
      catalyst.integer("particle_stride", cfg.catalyst.particle_stride);
  if (catalyst.find("channels")) {
    cfg.catalyst.channels =
        catalyst.choices("channels", {kParticleChannel, kGridChannel, kMaterialFractionChannel});
    if (cfg.catalyst.channels.empty())
      catalyst.fail("channels", "expected at least one channel, got an empty array");
  }
  const toml::node* node = catalyst.find("scripts");
  if (!node) return;
  const toml::array* scripts = node->as_array();
  if (!scripts)
    catalyst.fail("scripts", "expected an array of file names, got " + describe(*node));
#if !DUNESIM_WITH_CATALYST
  if (!scripts->empty()) {
    catalyst.fail("scripts",
                  "this dunesim was built without ParaView Catalyst; rebuild with "
                  "-DDUNESIM_WITH_CATALYST=ON or remove the key");
  }
#endif
  for (size_t i = 0; i < scripts->size(); ++i) {
    std::string path_key = catalyst.key_path("scripts") + "[" + std::to_string(i) + "]";
    const toml::node& element = *scripts->get(i);
    auto name = element.as_string();
    if (!name || name->get().empty()) {
      fail_at(cfg.file, path_key, &element,
              "expected a non-empty string (a script file), got " + describe(element));
    }
    std::filesystem::path path(name->get());
    if (path.is_relative()) path = std::filesystem::path(cfg.file).parent_path() / path;
    path = path.lexically_normal();
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error))
      fail_at(cfg.file, path_key, &element, "no such script file: " + path.string());
    cfg.catalyst.scripts.push_back(path.string());
  }
}

// The case name is the stem of every output file name (<name>_000001.h5, <name>.xmf), so it
// must be a plain file name: it may not reach out of the output directory or need quoting.
constexpr size_t kMaxNameLength = 200;  // + "_000001.h5.tmp" stays under NAME_MAX (255)

bool is_name_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

bool is_plain_file_name(std::string_view name) {
  return !name.empty() && name.size() <= kMaxNameLength && name != "." && name != ".." &&
         std::all_of(name.begin(), name.end(), is_name_character);
}

// The case file's stem, with characters a name may not have replaced by '_'.
std::string default_name(const std::string& file) {
  std::string stem = std::filesystem::path(file).stem().string().substr(0, kMaxNameLength);
  for (char& c : stem)
    if (!is_name_character(c)) c = '_';
  return is_plain_file_name(stem) ? stem : "case";
}

std::string read_case_name(const Table& case_table, const std::string& file) {
  std::string name = case_table.non_empty_string("name", default_name(file));
  if (!is_plain_file_name(name))
    case_table.fail("name", "expected a file name of at most " + std::to_string(kMaxNameLength) +
                                " letters, digits, '_', '-' and '.' (not \".\" or \"..\"), "
                                "got " +
                                in_quotes(name));
  return name;
}

void read_time(const Table& root, CaseConfig& cfg) {
  Table time = root.table("time");
  time.allow_only(keys_of("time"));
  cfg.end_time = time.number("end", kRequired);
  cfg.max_steps = time.integer("max_steps", cfg.max_steps);
  cfg.cfl = time.number("cfl", cfg.cfl);
  cfg.max_dt = time.number("max_dt", cfg.max_dt);
}

// [output], after [time]: the interval is checked against the end time.
void read_output(const Table& root, CaseConfig& cfg) {
  Table output = root.table("output");
  output.allow_only(keys_of("output"));
  cfg.output.directory = output.non_empty_string("directory", "output/" + cfg.name);
  cfg.output.interval = output.number("interval", cfg.output.interval);
  const std::string problem = output_schedule_problem(cfg.end_time, cfg.output.interval);
  if (!problem.empty()) output.fail("interval", problem);
  cfg.output.grid_fields = output.boolean("grid_fields", cfg.output.grid_fields);
  cfg.output.single_precision =
      output.has("precision") && output.choice("precision", {"double", "single"}) == "single";
  cfg.output.particle_stride = output.integer("particle_stride", 1);
}

// Reads the whole file; on failure returns false and puts the reason into `out`.
bool read_file(const std::string& file, std::string& out) {
  try {
    out = read_input_file(file, kMaxCaseFileBytes);
    return true;
  } catch (const InputFileError& e) {
    out = e.what();
    return false;
  }
}

// Collective. Rank 0's {ok, payload} (a file's text, or why it could not be read) sent to
// every rank; returns ok.
bool share_from_rank0(MPI_Comm comm, bool ok, std::string& payload) {
  long long header[2] = {ok ? 1 : 0, static_cast<long long>(payload.size())};
  MPI_Bcast(header, 2, MPI_LONG_LONG, 0, comm);
  payload.resize(static_cast<size_t>(header[1]));
  if (header[1] > 0) MPI_Bcast(payload.data(), static_cast<int>(header[1]), MPI_CHAR, 0, comm);
  return header[0] != 0;
}

// A mesh reader for a parse that every rank of `comm` runs on the same case text: rank 0
// reads each mesh file and sends its text, or its read error, to the others. Every rank
// then parses the same bytes and reaches the same verdict, even where some nodes see
// another file or none; a rank that failed alone would leave the others waiting in the
// run's first collective.
MeshTextReader mesh_text_from_rank0(MPI_Comm comm) {
  return [comm](const std::string& path) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::string payload;
    bool ok = true;
    if (rank == 0) {
      try {
        payload = read_obj_text(path);
      } catch (const MeshError& e) {
        ok = false;
        payload = e.what();
      }
    }
    if (!share_from_rank0(comm, ok, payload)) throw SharedMeshError(payload);
    return payload;
  };
}

// Collective when called: a mesh's exact queries in contiguous shares, one per rank of
// `comm`, each rank's share gathered on every rank. Every rank parses the same case text,
// so every rank builds the same grids and calls this the same number of times; the queries
// are arithmetic that cannot fail on one rank alone.
MeshSampler samples_split_over(MPI_Comm comm) {
  return [comm](size_t count, const std::function<MeshSample(size_t)>& sample) {
    return computed_in_shares<MeshSample>(comm, count, sample);
  };
}

CaseConfig parse_case(const std::string& text, const std::string& file, const MeshAccess& meshes);

}  // namespace

std::string output_schedule_problem(double end_time, double interval,
                                    const std::string& end_name) {
  if (interval <= 0) return "";
  const double frames = std::floor(end_time / interval) + 1;  // the first at t = 0
  if (frames <= double(kMaxOutputFrames)) return "";
  return "with " + end_name + " = " + format_number(end_time) +
         " s, output.interval = " + format_number(interval) + " s gives " +
         format_number(frames) + " frames; at most " + std::to_string(kMaxOutputFrames) +
         " are allowed (raise output.interval)";
}

CaseConfig parse_case_text(const std::string& text, const std::string& file) {
  return parse_case(text, file, MeshAccess{read_obj_text});
}

CaseConfig parse_case_text(const std::string& text, const std::string& file, MPI_Comm comm) {
  return parse_case(text, file, MeshAccess{mesh_text_from_rank0(comm), samples_split_over(comm)});
}

namespace {

CaseConfig parse_case(const std::string& text, const std::string& file,
                      const MeshAccess& meshes) {
  toml::table document;
  try {
    document = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw CaseError(file, "",
                    "TOML syntax error at line " + std::to_string(e.source().begin.line) +
                        ", column " + std::to_string(e.source().begin.column) + ": " +
                        std::string(e.description()));
  }

  CaseConfig cfg;
  cfg.file = file;
  cfg.text = text;
  Table root(&document, "", file);
  root.allow_only({"case", "domain", "physics", "time", "seeding", "output", "checkpoint",
                   "catalyst", "load_balance", "pressure", "material", "source", "collider"});

  Table case_table = root.table("case");
  case_table.allow_only(keys_of("case"));
  cfg.name = read_case_name(case_table, file);

  read_domain(root, cfg);

  Table physics = root.table("physics");
  physics.allow_only(keys_of("physics"));
  cfg.gravity = physics.vec3("gravity", cfg.gravity);

  read_time(root, cfg);

  Table seeding = root.table("seeding");
  seeding.allow_only(keys_of("seeding"));
  cfg.jitter = seeding.number("jitter", cfg.jitter);
  cfg.seed = static_cast<uint64_t>(seeding.integer("seed", static_cast<int64_t>(cfg.seed)));

  read_output(root, cfg);

  Table checkpoint = root.table("checkpoint");
  checkpoint.allow_only(keys_of("checkpoint"));
  cfg.checkpoint.interval_steps =
      checkpoint.integer("interval_steps", cfg.checkpoint.interval_steps);
  cfg.checkpoint.interval_seconds =
      checkpoint.number("interval_seconds", cfg.checkpoint.interval_seconds);
  cfg.checkpoint.keep = static_cast<int>(checkpoint.integer("keep", cfg.checkpoint.keep));
  if (checkpoint.has("directory"))
    cfg.checkpoint.directory = checkpoint.non_empty_string("directory", kRequired);

  read_catalyst(root, cfg);

  Table balance = root.table("load_balance");
  balance.allow_only(keys_of("load_balance"));
  cfg.load_balance.interval_steps =
      static_cast<int>(balance.integer("interval_steps", cfg.load_balance.interval_steps));
  cfg.load_balance.threshold = balance.number("threshold", cfg.load_balance.threshold);
  cfg.load_balance.sand_particle_work =
      balance.number("sand_particle_work", cfg.load_balance.sand_particle_work);

  Table pressure = root.table("pressure");
  pressure.allow_only(keys_of("pressure"));
  cfg.pressure.rtol = pressure.number("rtol", cfg.pressure.rtol);
  cfg.pressure.max_iterations =
      static_cast<int>(pressure.integer("max_iterations", cfg.pressure.max_iterations));
  cfg.pressure.petsc_options = pressure.string("petsc_options", cfg.pressure.petsc_options);
  if (pressure.has("free_surface") &&
      pressure.choice("free_surface", {"first_order", "ghost_fluid"}) == "ghost_fluid")
    cfg.pressure.free_surface = FreeSurface::GhostFluid;

  read_materials(root, cfg);
  read_sources(root, cfg, meshes);
  read_colliders(root, cfg, meshes);
  return cfg;
}

}  // namespace

CaseConfig load_case(const std::string& file, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Rank 0 sends either the file text or, on failure, the reason; every rank then throws
  // or parses identically, so no rank is left waiting in a later collective.
  std::string payload;
  const bool read = rank == 0 ? read_file(file, payload) : true;
  if (!share_from_rank0(comm, read, payload))
    throw CaseError(file, "", "cannot open the case file: " + payload);
  return parse_case_text(payload, file, comm);
}

}  // namespace dunesim

// Frames written collectively by all ranks are read back serially on rank 0 and compared with
// what each rank held; the timing report is gathered and parsed back.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <hdf5.h>
#include <mpi.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "io/frame_writer.hpp"
#include "io/timing_report.hpp"

namespace dunesim {
namespace {

namespace fs = std::filesystem;

int comm_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int comm_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

// What /run records of the frames these tests write.
RunRecord test_run(std::vector<std::string> names, const std::array<int, 3>& cells,
                   double cell_size) {
  RunRecord run;
  run.dunesim_version = "test-version";
  run.source_revision = "test-revision";
  run.case_file = "cases/test.toml";
  run.case_text = "[case]\nname = \"test\"\n";
  run.cell_size = cell_size;
  for (int a = 0; a < 3; ++a) {
    run.cells[size_t(a)] = cells[size_t(a)];
    run.domain_upper[size_t(a)] = cells[size_t(a)] * cell_size;
  }
  run.gravity = {0, 0, -9.81};
  run.material_names = std::move(names);
  for (const std::string& name : run.material_names) run.material_kinds.push_back(name);
  return run;
}

// Expected values of the particle with global index g (ids are not contiguous on purpose).
int64_t expected_id(int64_t g) { return 1000 + 7 * g; }
std::array<double, 3> expected_position(int64_t g) { return {0.5 * g, 1.0 + 0.25 * g, -2.0 * g}; }
std::array<double, 3> expected_velocity(int64_t g, int frame) {
  return {double(g) + frame, -3.0 * g, 0.125 * g};
}
uint8_t expected_material(int64_t g) { return uint8_t(g % 2); }

// This rank's particles: global indices [first, first + count), stored in reverse order so
// the file order differs from the id order.
Particles make_particles(int64_t first, int64_t count, int frame) {
  Particles p;
  p.resize(size_t(count));
  for (int64_t i = 0; i < count; ++i) {
    int64_t g = first + count - 1 - i;
    auto x = expected_position(g);
    auto v = expected_velocity(g, frame);
    p.x[i] = x[0];
    p.y[i] = x[1];
    p.z[i] = x[2];
    p.vx[i] = v[0];
    p.vy[i] = v[1];
    p.vz[i] = v[2];
    p.id[i] = expected_id(g);
    p.material[i] = expected_material(g);
  }
  return p;
}

double expected_cell(int i, int j, int k, int frame) {
  return i + 100.0 * j + 10000.0 * k + 0.5 + frame;
}
constexpr double kGhostGarbage = -12345.0;

// Splits the global cells into one block per rank over a 3D process grid.
Box owned_block(const std::array<int, 3>& cells) {
  int dims[3] = {0, 0, 0};
  MPI_Dims_create(comm_size(), 3, dims);
  int rank = comm_rank();
  int coords[3] = {rank % dims[0], (rank / dims[0]) % dims[1], rank / (dims[0] * dims[1])};
  Box box;
  for (int a = 0; a < 3; ++a) {
    box.lo[a] = int(int64_t(cells[a]) * coords[a] / dims[a]);
    box.hi[a] = int(int64_t(cells[a]) * (coords[a] + 1) / dims[a]);
  }
  return box;
}

// A fresh directory under the test's working directory, the same path on every rank.
std::string fresh_directory(const std::string& name) {
  fs::path dir = fs::path("frame_writer_out") / name;
  if (comm_rank() == 0) fs::remove_all(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  return dir.string();
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Serial reads with the plain HDF5 API, as a post-processing tool would do.
struct H5File {
  hid_t id;
  explicit H5File(const std::string& path)
      : id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)) {}
  ~H5File() {
    if (id >= 0) H5Fclose(id);
  }
};

template <class T>
std::vector<T> read_dataset(hid_t file, const char* name, hid_t type,
                            std::vector<hsize_t>* dims = nullptr) {
  hid_t dataset = H5Dopen2(file, name, H5P_DEFAULT);
  EXPECT_GE(dataset, 0) << name;
  if (dataset < 0) return {};
  hid_t space = H5Dget_space(dataset);
  std::vector<hsize_t> extent(size_t(H5Sget_simple_extent_ndims(space)));
  H5Sget_simple_extent_dims(space, extent.data(), nullptr);
  std::vector<T> values(size_t(H5Sget_simple_extent_npoints(space)));
  if (!values.empty()) {
    EXPECT_GE(H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0) << name;
  }
  H5Sclose(space);
  H5Dclose(dataset);
  if (dims) *dims = extent;
  return values;
}

template <class T>
T read_attribute(hid_t object, const char* name, hid_t type) {
  T value{};
  hid_t attribute = H5Aopen(object, name, H5P_DEFAULT);
  EXPECT_GE(attribute, 0) << name;
  if (attribute >= 0) {
    EXPECT_GE(H5Aread(attribute, type, &value), 0) << name;
    H5Aclose(attribute);
  }
  return value;
}

// The writer stores strings as variable-length UTF-8; HDF5 does not convert between encodings.
hid_t utf8_string_type() {
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  return type;
}

std::string read_string_attribute(hid_t object, const char* name) {
  hid_t type = utf8_string_type();
  char* text = read_attribute<char*>(object, name, type);
  std::string value = text ? text : "";
  H5free_memory(text);
  H5Tclose(type);
  return value;
}

// The frame's /run group holds what the writer was given, and the ranks that wrote it; its
// cells are int64 (the layout that readers of /run rely on).
void check_run_group(hid_t file, const RunRecord& expected) {
  std::optional<RunRecord> run;
  ASSERT_NO_THROW(run = read_run_group(file));
  ASSERT_TRUE(run.has_value()) << "no /run group";
  EXPECT_EQ(run->dunesim_version, expected.dunesim_version);
  EXPECT_EQ(run->source_revision, expected.source_revision);
  EXPECT_EQ(run->ranks, comm_size());
  EXPECT_EQ(run->case_file, expected.case_file);
  EXPECT_EQ(run->case_text, expected.case_text);
  EXPECT_EQ(run->cell_size, expected.cell_size);
  EXPECT_EQ(run->cells, expected.cells);
  EXPECT_EQ(run->domain_lower, expected.domain_lower);
  EXPECT_EQ(run->domain_upper, expected.domain_upper);
  EXPECT_EQ(run->gravity, expected.gravity);
  EXPECT_EQ(run->material_names, expected.material_names);
  EXPECT_EQ(run->material_kinds, expected.material_kinds);
  hid_t cells = H5Aopen_by_name(file, "run", "cells", H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(cells, 0);
  hid_t type = H5Aget_type(cells);
  EXPECT_GT(H5Tequal(type, H5T_STD_I64LE), 0) << "/run @cells is not int64";
  H5Tclose(type);
  H5Aclose(cells);
}

// Checks one frame file on rank 0 against the particles and field that every rank wrote.
void check_frame(const std::string& path, int64_t total, int frame, double time, int64_t step,
                 const std::array<int, 3>& cells) {
  H5File file(path);
  ASSERT_GE(file.id, 0) << path;
  EXPECT_EQ(read_attribute<double>(file.id, "time", H5T_NATIVE_DOUBLE), time);
  EXPECT_EQ(read_attribute<int64_t>(file.id, "step", H5T_NATIVE_INT64), step);
  EXPECT_EQ(read_attribute<int64_t>(file.id, "frame", H5T_NATIVE_INT64), frame);
  EXPECT_EQ(read_attribute<int64_t>(file.id, "particle_count", H5T_NATIVE_INT64), total);
  EXPECT_EQ(read_string_attribute(file.id, "case_name"), "sandbox");

  std::vector<hsize_t> dims;
  auto position = read_dataset<double>(file.id, "/particles/position", H5T_NATIVE_DOUBLE, &dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{hsize_t(total), 3}));
  auto velocity = read_dataset<double>(file.id, "/particles/velocity", H5T_NATIVE_DOUBLE, &dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{hsize_t(total), 3}));
  auto ids = read_dataset<int64_t>(file.id, "/particles/id", H5T_NATIVE_INT64);
  auto material = read_dataset<uint8_t>(file.id, "/particles/material", H5T_NATIVE_UINT8);
  auto connectivity = read_dataset<int64_t>(file.id, "/particles/connectivity", H5T_NATIVE_INT64);
  ASSERT_EQ(int64_t(ids.size()), total);
  ASSERT_EQ(int64_t(material.size()), total);
  ASSERT_EQ(int64_t(connectivity.size()), total);
  ASSERT_EQ(int64_t(position.size()), 3 * total);
  ASSERT_EQ(int64_t(velocity.size()), 3 * total);

  // Every global index appears once, with its own values next to it.
  std::vector<int> seen(size_t(total), 0);
  for (int64_t row = 0; row < total; ++row) {
    EXPECT_EQ(connectivity[row], row);
    int64_t g = (ids[row] - 1000) / 7;
    ASSERT_TRUE(g >= 0 && g < total && expected_id(g) == ids[row]) << "bad id " << ids[row];
    ++seen[g];
    auto x = expected_position(g);
    auto v = expected_velocity(g, frame);
    for (int a = 0; a < 3; ++a) {
      EXPECT_EQ(position[3 * row + a], x[a]) << "particle " << g;
      EXPECT_EQ(velocity[3 * row + a], v[a]) << "particle " << g;
    }
    EXPECT_EQ(material[row], expected_material(g));
  }
  for (int64_t g = 0; g < total; ++g) EXPECT_EQ(seen[g], 1) << "particle " << g;

  {
    hid_t dataset = H5Dopen2(file.id, "/particles/material", H5P_DEFAULT);
    hid_t attribute = H5Aopen(dataset, "names", H5P_DEFAULT);
    EXPECT_GE(attribute, 0);
    if (attribute >= 0) {
      hid_t type = utf8_string_type();
      char* names[2] = {nullptr, nullptr};
      EXPECT_GE(H5Aread(attribute, type, names), 0);
      EXPECT_STREQ(names[0], "water");
      EXPECT_STREQ(names[1], "sand");
      for (char* name : names) H5free_memory(name);
      H5Tclose(type);
      H5Aclose(attribute);
    }
    H5Dclose(dataset);
  }

  check_run_group(file.id, test_run({"water", "sand"}, cells, 0.1));
  {
    hid_t dataset = H5Dopen2(file.id, "/particles/connectivity", H5P_DEFAULT);
    hid_t type = H5Dget_type(dataset);
    EXPECT_GT(H5Tequal(type, H5T_STD_I32LE), 0) << "connectivity is not int32";
    H5Tclose(type);
    H5Dclose(dataset);
  }

  auto field = read_dataset<double>(file.id, "/grid/pressure", H5T_NATIVE_DOUBLE, &dims);
  EXPECT_EQ(dims,
            (std::vector<hsize_t>{hsize_t(cells[2]), hsize_t(cells[1]), hsize_t(cells[0])}));
  ASSERT_EQ(field.size(), size_t(cells[0]) * cells[1] * cells[2]);
  for (int k = 0; k < cells[2]; ++k)
    for (int j = 0; j < cells[1]; ++j)
      for (int i = 0; i < cells[0]; ++i) {
        double value = field[i + size_t(cells[0]) * (j + size_t(cells[1]) * k)];
        ASSERT_EQ(value, expected_cell(i, j, k, frame)) << "cell " << i << " " << j << " " << k;
      }
}

// Writes two frames where rank r holds count(r) particles, then checks files and series.
void write_and_check(const std::string& name, const std::function<int64_t(int)>& count,
                     const FrameOptions& options = {}) {
  const std::string dir = fresh_directory(name);
  const std::array<int, 3> cells{7, 5, 3};
  const double cell_size = 0.1;
  const int rank = comm_rank(), ranks = comm_size();
  int64_t first = 0, total = 0;
  for (int r = 0; r < ranks; ++r) {
    if (r < rank) first += count(r);
    total += count(r);
  }

  FrameWriter writer(MPI_COMM_WORLD, dir, "sandbox",
                     test_run({"water", "sand"}, cells, cell_size), {}, options);
  const Box owned = owned_block(cells);
  Array3<double> pressure(owned.grown(2), Stagger::Cell, kGhostGarbage);

  const double times[2] = {0.25, 0.5};
  const int64_t steps[2] = {10, 20};
  std::vector<std::string> paths;
  for (int frame = 0; frame < 2; ++frame) {
    Particles particles = make_particles(first, count(rank), frame);
    for_each_index(owned, [&](int i, int j, int k) {
      pressure(i, j, k) = expected_cell(i, j, k, frame);
    });
    paths.push_back(writer.write(particles, times[frame], steps[frame],
                                 {GridFieldView{"pressure", &pressure, owned}}));
  }
  EXPECT_EQ(writer.frames_written(), 2);
  EXPECT_EQ(paths[1], (fs::path(dir) / "sandbox_000001.h5").string());
  if (rank != 0) return;

  for (int frame = 0; frame < 2; ++frame) {
    SCOPED_TRACE(paths[frame]);
    check_frame(paths[frame], total, frame, times[frame], steps[frame], cells);
  }

  const std::string series = read_text(fs::path(dir) / "sandbox.xmf");
  EXPECT_NE(series.find("<Xdmf Version=\"3.0\">"), std::string::npos);
  EXPECT_NE(series.find("CollectionType=\"Temporal\""), std::string::npos);
  EXPECT_NE(series.find("<Time Value=\"0.25\"/>"), std::string::npos);
  EXPECT_NE(series.find("<Time Value=\"0.5\"/>"), std::string::npos);
  // Connectivity, 0 .. N-1, in 4 bytes: the series must say so.
  EXPECT_NE(series.find("NumberType=\"Int\" Precision=\"4\" "
                        "Format=\"HDF\">sandbox_000000.h5:/particles/connectivity"),
            std::string::npos);
  EXPECT_NE(series.find("sandbox_000001.h5:/particles/position"), std::string::npos);
  // The material names, as ParaView's field data: one value per material, per frame.
  for (const auto& [name, value] : {std::pair{"water", 0}, std::pair{"sand", 1}}) {
    const std::string field = fmt::format(
        "<Attribute Name=\"material: {}\" AttributeType=\"Scalar\" Center=\"Grid\">\n"
        "          <DataItem Dimensions=\"1\" NumberType=\"UChar\" Precision=\"1\" "
        "Format=\"XML\">{}</DataItem>",
        name, value);
    const size_t at = series.find(field);
    EXPECT_NE(at, std::string::npos) << field;
    if (at != std::string::npos)
      EXPECT_NE(series.find(field, at + 1), std::string::npos) << field;
  }
  const std::string elements = "NumberOfElements=\"" + std::to_string(total) + "\"";
  size_t first_match = series.find(elements);
  EXPECT_NE(first_match, std::string::npos) << elements;
  EXPECT_NE(series.find(elements, first_match + 1), std::string::npos) << elements;

  const std::string grid_series = read_text(fs::path(dir) / "sandbox_grid.xmf");
  EXPECT_NE(grid_series.find("3DCoRectMesh"), std::string::npos);
  EXPECT_NE(grid_series.find("Dimensions=\"4 6 8\""), std::string::npos);
  EXPECT_NE(grid_series.find("sandbox_000001.h5:/grid/pressure"), std::string::npos);

  for (const auto& entry : fs::directory_iterator(dir)) {
    EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();
  }
}

TEST(FrameWriter, EveryRankHoldsADifferentNumberOfParticles) {
  write_and_check("uneven", [](int r) { return int64_t(50 + 37 * r); });
}

TEST(FrameWriter, RanksWithoutParticlesJoinWithEmptySelections) {
  // Rank 0 and every third rank hold nothing; on one rank the frame is empty altogether.
  write_and_check("empty_ranks", [](int r) { return r % 3 == 0 ? int64_t(0) : int64_t(11 * r); });
}

// Arrays converted for the file (positions and velocities interleaved, connectivity) are
// written a few rows per collective call, so that a large frame needs no copy of them. With
// pieces of two rows the ranks make different numbers of calls (rank r holds 5 + 9 r rows),
// and every row must still land in its place.
TEST(FrameWriter, RowsConvertedInPiecesLandInPlace) {
  FrameOptions options;
  options.piece_bytes = 2 * 3 * sizeof(double);
  write_and_check(
      "pieces", [](int r) { return int64_t(5 + 9 * r); }, options);
}

// Single precision: position and velocity are stored as float32 and read back within
// float32's round-off of what each rank held (relative 2^-24 of each value), the XDMF series
// says Precision="4" for them, and the ids are exact.
TEST(FrameWriter, SinglePrecisionReadsBackWithinFloatRoundOff) {
  const std::string dir = fresh_directory("single");
  const int rank = comm_rank();
  const int64_t count = 40 + 13 * rank;
  int64_t first = 0, total = 0;
  for (int r = 0; r < comm_size(); ++r) {
    if (r < rank) first += 40 + 13 * r;
    total += 40 + 13 * r;
  }
  FrameWriter writer(MPI_COMM_WORLD, dir, "single", test_run({"water", "sand"}, {7, 5, 3}, 0.1),
                     {}, FrameOptions{true, 1});
  const std::string path = writer.write(make_particles(first, count, 0), 0.5, 3);
  if (rank != 0) return;
  H5File file(path);
  auto position = read_dataset<double>(file.id, "/particles/position", H5T_NATIVE_DOUBLE);
  auto velocity = read_dataset<double>(file.id, "/particles/velocity", H5T_NATIVE_DOUBLE);
  auto ids = read_dataset<int64_t>(file.id, "/particles/id", H5T_NATIVE_INT64);
  ASSERT_EQ(int64_t(ids.size()), total);
  const double eps = std::ldexp(1.0, -24);
  double worst = 0;
  for (size_t n = 0; n < ids.size(); ++n) {
    const int64_t g = (ids[n] - 1000) / 7;
    ASSERT_EQ(ids[n], expected_id(g));
    const auto x = expected_position(g);
    const auto v = expected_velocity(g, 0);
    for (int a = 0; a < 3; ++a) {
      worst = std::max(worst,
                       std::abs(position[3 * n + a] - x[a]) / std::max(std::abs(x[a]), 1e-300));
      worst = std::max(worst,
                       std::abs(velocity[3 * n + a] - v[a]) / std::max(std::abs(v[a]), 1e-300));
    }
  }
  RecordProperty("worst_relative_error", std::to_string(worst));
  EXPECT_LE(worst, eps);
  hid_t dataset = H5Dopen2(file.id, "/particles/position", H5P_DEFAULT);
  hid_t type = H5Dget_type(dataset);
  EXPECT_EQ(H5Tget_size(type), 4u);  // stored as float32, not float64 that happens to round
  H5Tclose(type);
  H5Dclose(dataset);
  const std::string series = read_text(fs::path(dir) / "single.xmf");
  EXPECT_NE(series.find("Precision=\"4\" Format=\"HDF\">single_000000.h5:/particles/position"),
            std::string::npos);
}

// Particles of a case without porous sand carry no water content; their frames still hold
// one per particle, their material's (1 for water, 0 for sand), in double and in single
// precision, and the saturation that follows from it.
TEST(FrameWriter, ParticlesWithoutWaterContentWriteTheirMaterials) {
  const int rank = comm_rank();
  int64_t first = 0;
  for (int r = 0; r < rank; ++r) first += 30 + 7 * r;
  for (const bool single : {false, true}) {
    const std::string name = single ? "dry_single" : "dry_double";
    FrameWriter writer(MPI_COMM_WORLD, fresh_directory(name), name,
                       test_run({"water", "sand"}, {7, 5, 3}, 0.1), {0.0, 0.0},
                       FrameOptions{single, 1});
    Particles p = make_particles(first, 30 + 7 * rank, 0);
    p.carry_water(false, {1.0, 0.0});
    ASSERT_TRUE(p.water_content.empty());
    const std::string path = writer.write(p, 0.5, 3);
    if (rank != 0) continue;
    H5File file(path);
    auto water = read_dataset<double>(file.id, "/particles/water_content", H5T_NATIVE_DOUBLE);
    auto saturation = read_dataset<float>(file.id, "/particles/saturation", H5T_NATIVE_FLOAT);
    auto ids = read_dataset<int64_t>(file.id, "/particles/id", H5T_NATIVE_INT64);
    ASSERT_EQ(water.size(), ids.size());
    for (size_t n = 0; n < ids.size(); ++n) {
      const bool is_water = expected_material((ids[n] - 1000) / 7) == 0;
      EXPECT_EQ(water[n], is_water ? 1.0 : 0.0) << name << " particle " << ids[n];
      EXPECT_EQ(saturation[n], is_water ? 1.0f : 0.0f) << name << " particle " << ids[n];
    }
  }
}

// A stride keeps exactly the particles whose id is a multiple of it, from every rank, and the
// frame says how many it holds and with which stride.
TEST(FrameWriter, StrideWritesEveryParticleWhoseIdItDivides) {
  const std::string dir = fresh_directory("stride");
  const int rank = comm_rank();
  const int64_t count = 60 + 7 * rank;
  int64_t first = 0, total = 0;
  for (int r = 0; r < comm_size(); ++r) {
    if (r < rank) first += 60 + 7 * r;
    total += 60 + 7 * r;
  }
  constexpr int64_t kStride = 3;
  FrameWriter writer(MPI_COMM_WORLD, dir, "stride", test_run({"water", "sand"}, {7, 5, 3}, 0.1),
                     {}, FrameOptions{false, kStride});
  const std::string path = writer.write(make_particles(first, count, 0), 0.5, 3);
  if (rank != 0) return;
  std::vector<int64_t> expected;
  for (int64_t g = 0; g < total; ++g)
    if (expected_id(g) % kStride == 0) expected.push_back(expected_id(g));
  H5File file(path);
  auto ids = read_dataset<int64_t>(file.id, "/particles/id", H5T_NATIVE_INT64);
  auto position = read_dataset<double>(file.id, "/particles/position", H5T_NATIVE_DOUBLE);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, expected);
  EXPECT_EQ(position.size(), 3 * expected.size());
  EXPECT_EQ(read_attribute<int64_t>(file.id, "particle_count", H5T_NATIVE_INT64),
            int64_t(expected.size()));
  EXPECT_EQ(read_attribute<int64_t>(file.id, "particle_stride", H5T_NATIVE_INT64), kStride);
}

TEST(FrameWriter, UnwritableFrameThrowsOnEveryRank) {
  const std::string dir = fresh_directory("blocked");
  FrameWriter writer(MPI_COMM_WORLD, dir, "blocked", test_run({"sand"}, {2, 2, 2}, 1.0));
  // A directory where the temporary frame file should go makes the collective create fail.
  if (comm_rank() == 0) fs::create_directories(fs::path(dir) / "blocked_000000.h5.tmp");
  MPI_Barrier(MPI_COMM_WORLD);
  Particles particles = make_particles(0, 3, 0);
  try {
    writer.write(particles, 0.0, 0);
    ADD_FAILURE() << "write did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("blocked_000000.h5"), std::string::npos) << e.what();
  }
  EXPECT_EQ(writer.frames_written(), 0);
  if (comm_rank() == 0) { EXPECT_FALSE(fs::exists(fs::path(dir) / "blocked.xmf")); }
}

TEST(FrameWriter, DirectoryThatCannotBeCreatedThrowsOnEveryRank) {
  const std::string dir = fresh_directory("not_a_directory");
  if (comm_rank() == 0) {
    fs::create_directories(fs::path(dir).parent_path());
    std::ofstream(dir) << "a file in the way\n";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_THROW(FrameWriter(MPI_COMM_WORLD, dir + "/frames", "x", test_run({}, {1, 1, 1}, 1.0)),
               std::runtime_error);
}

// The room a frame asks for before it is written (frame_file_bytes) against the file then
// written: never less, so a frame that passes the room check fits, and at most 1.25 times it
// plus 64 KiB, so a nearly full disk is not refused while there is room. Small frames are
// mostly metadata; in large ones datasets of 1 MiB and more start on 1 MiB boundaries and the
// gaps before them fill, or not, with smaller datasets.
TEST(FrameWriter, RoomAskedForIsATightUpperBoundOfTheFile) {
  struct Frame {
    const char* name;
    int64_t particles;  // over all ranks
    bool single_precision;
    std::array<int, 3> cells;
    bool with_grid;
    size_t case_text_bytes = 0;  // beyond test_run's few: /run's case text is counted too
  };
  const Frame frames[] = {{"small", 2048, false, {8, 8, 8}, false},
                          {"medium", 70000, false, {8, 8, 8}, false},
                          {"large", 150000, false, {8, 8, 8}, false},
                          {"large_single", 150000, true, {8, 8, 8}, false},
                          {"grid", 20000, false, {64, 64, 64}, true},
                          {"long_case", 2048, false, {8, 8, 8}, false, 400000}};
  for (const Frame& frame : frames) {
    const std::string dir = fresh_directory(std::string("room_") + frame.name);
    const int rank = comm_rank(), size = comm_size();
    const int64_t first = frame.particles * rank / size;
    const int64_t count = frame.particles * (rank + 1) / size - first;
    RunRecord run = test_run({"water", "sand"}, frame.cells, 0.1);
    run.case_text += std::string(frame.case_text_bytes, '#');
    FrameWriter writer(MPI_COMM_WORLD, dir, frame.name, run, {},
                       FrameOptions{frame.single_precision, 1});
    const Box owned = owned_block(frame.cells);
    Array3<double> pressure(owned.grown(2), Stagger::Cell, 1.0);
    std::vector<GridFieldView> fields;
    if (frame.with_grid) fields.push_back(GridFieldView{"pressure", &pressure, owned});
    const std::string path = writer.write(make_particles(first, count, 0), 0.5, 3, fields);
    if (rank != 0) continue;
    const uint64_t real = fs::file_size(path);
    const uint64_t asked = frame_file_bytes(frame.particles, frame.cells, fields.size(),
                                            frame.single_precision, run_group_bytes(run));
    RecordProperty(std::string(frame.name) + "_bytes", std::to_string(real));
    RecordProperty(std::string(frame.name) + "_asked_bytes", std::to_string(asked));
    EXPECT_GE(asked, real) << frame.name;
    EXPECT_LE(asked, real + real / 4 + (64 << 10)) << frame.name;
  }
}

RunTimings sample_timings(int rank) {
  RunTimings t;
  t.case_name = "dune \"one\"\\two";
  t.steps = 4;
  t.simulated_time = 0.02;
  t.wall_seconds = 2.0 + rank;  // the report takes the slowest rank
  t.stage_seconds = {{"advect", 0.5 * (rank + 1)}, {"pressure_solve", 1.0}, {"output", 0.25}};
  t.pressure_iterations = {10, 20, 30, 40};
  t.particles = 100 * (rank + 1);
  t.halo_bytes_sent = 1000 + rank;
  t.peak_rss_bytes = 1 << 20;
  t.stage_peak_rise = {0, 4096 * (rank + 1), 0};  // only pressure_solve raised the peak
  t.stage_bytes = {1e9, 0, 0};                    // only advect reports its memory traffic
  t.peak_rise_outside_stages = 8192;
  return t;
}

TEST(TimingReport, RankZeroWritesGatheredFigures) {
  const std::string dir = fresh_directory("timing");
  const std::string path = dir + "/nested/timing.json";
  const int rank = comm_rank(), ranks = comm_size();
  write_timing_report(MPI_COMM_WORLD, path, sample_timings(rank));
  if (rank != 0) return;

  const std::string json = read_text(path);
  EXPECT_NE(json.find("\"case_name\": \"dune \\\"one\\\"\\\\two\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"ranks\": " + std::to_string(ranks) + ","), std::string::npos) << json;
  EXPECT_NE(json.find("\"steps\": 4,"), std::string::npos);
  EXPECT_NE(json.find("\"wall_seconds\": " + std::to_string(1 + ranks) + ","), std::string::npos)
      << json;
  for (const char* stage : {"\"advect\"", "\"pressure_solve\"", "\"output\""}) {
    EXPECT_NE(json.find(stage), std::string::npos) << stage;
  }
  EXPECT_NE(json.find("\"per_step\": [10, 20, 30, 40], \"mean\": 25, \"max\": 40"),
            std::string::npos)
      << json;
  // advect's traffic summed over the ranks (1e9 bytes each) over its slowest rank's 0.5 ranks
  // seconds: 2 GB/s; the stages that report none have neither figure.
  EXPECT_NE(json.find(fmt::format("\"bytes\": {}, \"gb_per_s\": 2}}", 1e9 * ranks)),
            std::string::npos)
      << json;
  EXPECT_EQ(json.find("gb_per_s"), json.rfind("gb_per_s")) << json;
  EXPECT_NE(json.find("\"rank\": " + std::to_string(ranks - 1) + ","), std::string::npos);
  EXPECT_EQ(json.find("\"rank\": " + std::to_string(ranks) + ","), std::string::npos);
  // Each rank's own rises of its peak memory, naming only the stages that raised it.
  EXPECT_NE(json.find(fmt::format("\"peak_rss_rise_bytes\": {{\"outside_stages\": 8192, "
                                  "\"pressure_solve\": {}}}",
                                  4096 * ranks)),
            std::string::npos)
      << json;
  // particles 100 * (r + 1): max / mean = ranks / ((ranks + 1) / 2).
  const double imbalance = 2.0 * ranks / (ranks + 1);
  EXPECT_NE(json.find(fmt::format("\"particle_imbalance\": {},", imbalance)), std::string::npos)
      << json;
  // The test's ranks share one node: more of them than its cores is oversubscribed (4 ranks
  // on a 2-core machine), which scaling plots mark.
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  const nlohmann::json report = nlohmann::json::parse(json);
  EXPECT_EQ(report["most_ranks_on_a_node"], ranks);
  EXPECT_EQ(report["fewest_node_cores"], cores);
  EXPECT_EQ(report["oversubscribed"], ranks > cores);
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  // Without rigid-plastic sand the report has no solve rounds.
  EXPECT_EQ(json.find("rigid_plastic_rounds"), std::string::npos) << json;
}

// Rigid-plastic sand's solve: each step's rounds, and the steps that stopped at the limit.
TEST(TimingReport, RigidPlasticRoundsAndUnconvergedSteps) {
  const std::string dir = fresh_directory("timing_rigid_plastic");
  const std::string path = dir + "/timing.json";
  RunTimings timings = sample_timings(comm_rank());
  timings.sand_solve_rounds = {1, 3, 40, 4};
  timings.sand_solve_round_limit = 40;
  timings.sand_solve_unconverged_steps = 1;
  timings.sand_solve_largest_change = 0.0025;
  write_timing_report(MPI_COMM_WORLD, path, timings);
  if (comm_rank() != 0) return;
  const std::string json = read_text(path);
  EXPECT_NE(json.find("\"rigid_plastic_rounds\": {\"per_step\": [1, 3, 40, 4], \"mean\": 12, "
                      "\"max\": 40, \"round_limit\": 40, \"unconverged_steps\": 1, "
                      "\"largest_final_change\": 0.0025}"),
            std::string::npos)
      << json;
}

// JSON has no inf or nan: a broken measurement must leave a file that still parses, with
// null in its place.
TEST(TimingReport, NonFiniteFiguresAreWrittenAsNull) {
  const std::string dir = fresh_directory("timing_non_finite");
  const std::string path = dir + "/timing.json";
  RunTimings timings = sample_timings(comm_rank());
  timings.simulated_time = std::numeric_limits<double>::quiet_NaN();
  timings.stage_seconds.front().second = std::numeric_limits<double>::infinity();
  timings.imbalance_history = {{10, 1.5, std::numeric_limits<double>::quiet_NaN()}};
  write_timing_report(MPI_COMM_WORLD, path, timings);
  if (comm_rank() != 0) return;

  const std::string text = read_text(path);
  nlohmann::json report;
  ASSERT_NO_THROW(report = nlohmann::json::parse(text)) << text;
  EXPECT_TRUE(report["simulated_time"].is_null()) << text;
  EXPECT_TRUE(report["stages"][0]["max"].is_null()) << text;
  EXPECT_TRUE(report["per_rank"][0]["stage_seconds"]["advect"].is_null()) << text;
  EXPECT_EQ(report["load_balance_checks"][0]["before"], 1.5);
  EXPECT_TRUE(report["load_balance_checks"][0]["after"].is_null()) << text;
  EXPECT_EQ(report["stages"][1]["name"], "pressure_solve");
  EXPECT_EQ(report["stages"][1]["max"], 1.0);
}

TEST(TimingReport, DifferentStageListsThrowOnEveryRank) {
  if (comm_size() == 1) GTEST_SKIP() << "needs two ranks";
  RunTimings timings = sample_timings(comm_rank());
  if (comm_rank() == 1) timings.stage_seconds.back().first = "other";
  const std::string dir = fresh_directory("timing_mismatch");
  EXPECT_THROW(write_timing_report(MPI_COMM_WORLD, dir + "/timing.json", timings),
               std::runtime_error);
}

}  // namespace
}  // namespace dunesim

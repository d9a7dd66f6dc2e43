#include "postproc/surface/frame_particles.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "io/parallel_hdf5.hpp"
#include "io/rank_agreement.hpp"
#include "io/run_record.hpp"

namespace dunesim {

namespace {

namespace fs = std::filesystem;

void check_is_file(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status)) throw std::runtime_error("no such file");
  if (!fs::is_regular_file(status)) throw std::runtime_error("not a regular file");
}

bool has_link(hid_t parent, const char* name) { return H5Lexists(parent, name, H5P_DEFAULT) > 0; }

// Rows of /particles/position, which must be N x 3.
int64_t position_rows(hid_t file) {
  if (!has_link(file, "particles") || !has_link(file, "particles/position"))
    throw std::runtime_error("no dataset /particles/position: not a dunesim frame");
  const std::vector<hsize_t> dims = dataset_extent(file, "particles/position");
  if (dims.size() != 2 || dims[1] != 3)
    throw std::runtime_error("/particles/position is not an N x 3 array");
  return int64_t(dims[0]);
}

// The material names: /run @material_names, or /particles/material @names in frames written
// before /run.
std::vector<std::string> material_names(hid_t file, const std::optional<RunRecord>& run) {
  if (run) return run->material_names;
  H5Handle dataset(check_id(H5Dopen2(file, "particles/material", H5P_DEFAULT), "H5Dopen2"),
                   H5Dclose);
  return read_string_list_attribute(dataset.get(), "names");
}

// The index of material `name` in the frame's material names.
int material_index(hid_t file, const std::optional<RunRecord>& run, int64_t rows,
                   const std::string& name) {
  if (!has_link(file, "particles/material") ||
      dataset_extent(file, "particles/material") != std::vector<hsize_t>{hsize_t(rows)})
    throw std::runtime_error("no dataset /particles/material of one value per particle");
  const std::vector<std::string> names = material_names(file, run);
  const auto found = std::find(names.begin(), names.end(), name);
  if (found == names.end())
    throw std::runtime_error(
        fmt::format("no material named '{}' (it has: {})", name, fmt::join(names, ", ")));
  return int(found - names.begin());
}

// /run @cell_size, or /grid @cell_size in frames written before /run (0 when neither is there).
double frame_cell_size(hid_t file, const std::optional<RunRecord>& run) {
  if (run) return run->cell_size;
  if (!has_link(file, "grid")) return 0;
  H5Handle grid(check_id(H5Gopen2(file, "grid", H5P_DEFAULT), "H5Gopen2 grid"), H5Gclose);
  if (H5Aexists(grid.get(), "cell_size") <= 0) return 0;
  double cell_size = 0;
  read_attribute(grid.get(), "cell_size", H5T_NATIVE_DOUBLE, &cell_size);
  return cell_size;
}

// Collective. `path` opened on every rank, or AgreedError saying what is wrong with it.
H5Handle open_frame(MPI_Comm comm, const std::string& path) {
  run_agreed(comm, path, [&] { check_is_file(path); });
  H5Handle file;
  run_agreed(comm, path, [&] {
    try {
      file = open_parallel_file(comm, path);
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("cannot open it as HDF5 (truncated or damaged?): ") +
                               e.what());
    }
  });
  return file;
}

// /run @material_names, else /particles/material @names, or nothing when the frame does not
// name its materials.
std::vector<std::string> recorded_material_names(hid_t file,
                                                 const std::optional<RunRecord>& run) {
  if (run) return run->material_names;
  if (!has_link(file, "particles/material")) return {};
  H5Handle dataset(check_id(H5Dopen2(file, "particles/material", H5P_DEFAULT), "H5Dopen2"),
                   H5Dclose);
  if (H5Aexists(dataset.get(), "names") <= 0) return {};
  return read_string_list_attribute(dataset.get(), "names");
}

// This rank's contiguous share of the rows: positions (x, y, z per row) and materials.
struct RowShare {
  int64_t first = 0, count = 0;
  std::vector<double> xyz;
  std::vector<uint8_t> material;
  std::vector<double> saturation;  // empty when the frame has none
};

// Collective: reads the share with one collective hyperslab read per dataset.
RowShare read_row_share(MPI_Comm comm, hid_t file, const std::string& path, int64_t rows,
                        bool with_material, bool with_saturation) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  RowShare share;
  share.first = rows * rank / ranks;
  share.count = rows * (rank + 1) / ranks - share.first;
  ReadProperties props;
  run_agreed(comm, path, [&] {
    props = make_read_properties(comm);
    share.xyz.resize(size_t(3 * share.count));
    share.material.resize(with_material ? size_t(share.count) : 0);
    share.saturation.resize(with_saturation ? size_t(share.count) : 0);
  });
  run_agreed(comm, path, [&] {
    auto [vector_file, vector_memory] = row_block(rows, 3, share.first, share.count);
    read_dataset(file, "particles/position", H5T_NATIVE_DOUBLE, vector_file, vector_memory,
                 share.xyz.data(), props);
    auto [scalar_file, scalar_memory] = row_block(rows, 1, share.first, share.count);
    if (with_saturation)
      read_dataset(file, "particles/saturation", H5T_NATIVE_DOUBLE, scalar_file, scalar_memory,
                   share.saturation.data(), props);
    if (with_material)
      read_dataset(file, "particles/material", H5T_NATIVE_UINT8, scalar_file, scalar_memory,
                   share.material.data(), props);
  });
  return share;
}

// The share's particles of material `wanted` (all when -1), into `frame`; throws at a
// position that is not finite.
void keep_particles(const RowShare& share, int wanted, FrameParticles& frame) {
  for (int64_t p = 0; p < share.count; ++p) {
    const Vec3 x{share.xyz[3 * p], share.xyz[3 * p + 1], share.xyz[3 * p + 2]};
    if (!std::isfinite(x[0]) || !std::isfinite(x[1]) || !std::isfinite(x[2]))
      throw std::runtime_error(
          fmt::format("/particles/position row {} is not finite", share.first + p));
    if (wanted >= 0 && share.material[size_t(p)] != wanted) continue;
    frame.position.push_back(x);
    if (!share.saturation.empty()) frame.saturation.push_back(share.saturation[size_t(p)]);
  }
}

}  // namespace

FrameParticles read_frame_particles(MPI_Comm comm, const std::string& path,
                                    const std::string& material) {
  QuietHdf5Errors quiet;
  H5Handle file = open_frame(comm, path);
  FrameParticles frame;
  int wanted = -1;
  bool with_saturation = false;
  run_agreed(comm, path, [&] {
    frame.rows = position_rows(file.get());
    with_saturation = has_link(file.get(), "particles/saturation");
    frame.has_saturation = with_saturation;
    const std::optional<RunRecord> run = read_run_group(file.get());
    frame.cell_size = frame_cell_size(file.get(), run);
    if (!material.empty()) wanted = material_index(file.get(), run, frame.rows, material);
    frame.material_names = recorded_material_names(file.get(), run);
  });
  const RowShare share =
      read_row_share(comm, file.get(), path, frame.rows, wanted >= 0, with_saturation);
  run_agreed(comm, path, [&] { keep_particles(share, wanted, frame); });
  return frame;
}

}  // namespace dunesim

// Output frames: every rank writes its slice of each dataset into one shared HDF5 file with a
// single collective H5Dwrite, and rank 0 keeps an XDMF series that indexes the files.
#include "io/frame_writer.hpp"

#include <fmt/format.h>
#include <hdf5.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace dunesim {
namespace {

namespace fs = std::filesystem;

// Owns one HDF5 identifier and closes it with the matching H5?close function.
class H5Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  H5Handle() = default;
  H5Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  H5Handle(H5Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)),
                                        closer_(other.closer_) {}
  H5Handle& operator=(H5Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
      closer_ = other.closer_;
    }
    return *this;
  }
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
  ~H5Handle() { reset(); }

  hid_t get() const { return id_; }
  void reset() {
    if (id_ >= 0) closer_(id_);
    id_ = H5I_INVALID_HID;
  }
  // Closes now and reports failure, for closes whose success matters (the file's).
  herr_t close() {
    herr_t status = id_ >= 0 ? closer_(id_) : 0;
    id_ = H5I_INVALID_HID;
    return status;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

// The outermost and innermost messages of HDF5's error stack: the call that failed and the
// cause it ran into (e.g. "unable to open file ... 'Is a directory'").
std::string hdf5_error_detail() {
  std::pair<std::string, std::string> outer_inner;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned n, const H5E_error2_t* error, void* data) -> herr_t {
        auto& messages = *static_cast<std::pair<std::string, std::string>*>(data);
        std::string text = fmt::format("{}: {}", error->func_name ? error->func_name : "?",
                                       error->desc ? error->desc : "");
        if (n == 0) messages.first = text;
        messages.second = std::move(text);
        return 0;
      },
      &outer_inner);
  if (outer_inner.first.empty()) return "no HDF5 error details";
  if (outer_inner.first == outer_inner.second) return outer_inner.first;
  return outer_inner.first + " <- " + outer_inner.second;
}

hid_t check_id(hid_t id, const char* what) {
  if (id < 0) throw std::runtime_error(fmt::format("{} failed: {}", what, hdf5_error_detail()));
  return id;
}

void check_status(herr_t status, const char* what) {
  if (status < 0) {
    throw std::runtime_error(fmt::format("{} failed: {}", what, hdf5_error_detail()));
  }
}

// Silences HDF5's own error printing for its lifetime: failures become exceptions with one
// readable message instead of a stack dump from every rank. Restores the previous handler.
class QuietHdf5Errors {
 public:
  QuietHdf5Errors() {
    H5Eget_auto2(H5E_DEFAULT, &handler_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, handler_, data_); }
  QuietHdf5Errors(const QuietHdf5Errors&) = delete;
  QuietHdf5Errors& operator=(const QuietHdf5Errors&) = delete;

 private:
  H5E_auto2_t handler_ = nullptr;
  void* data_ = nullptr;
};

// Runs `step` on every rank and turns a failure on any rank into the same exception on every
// rank, so that no rank goes on into a collective call that the others have abandoned.
// The message is the one of the lowest failing rank, prefixed with `path`.
template <class Step>
void run_agreed(MPI_Comm comm, const std::string& path, Step&& step) {
  std::string local_error;
  try {
    step();
  } catch (const std::exception& e) {
    local_error = e.what();
    if (local_error.empty()) local_error = "unknown error";
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int mine = local_error.empty() ? size : rank;
  int first_failed = size;
  MPI_Allreduce(&mine, &first_failed, 1, MPI_INT, MPI_MIN, comm);
  if (first_failed == size) return;
  int length = int(local_error.size());
  MPI_Bcast(&length, 1, MPI_INT, first_failed, comm);
  local_error.resize(size_t(length));
  MPI_Bcast(local_error.data(), length, MPI_CHAR, first_failed, comm);
  throw std::runtime_error(fmt::format("{}: {} (on rank {})", path, local_error, first_failed));
}

// One dataspace selection: the whole extent `dims`, of which the block at `start` with
// extent `count` is selected (nothing when any count is 0).
struct Selection {
  std::vector<hsize_t> dims, start, count;

  bool empty() const {
    for (hsize_t c : count)
      if (c == 0) return true;
    return false;
  }
  H5Handle space() const {
    if (empty()) {
      // A rank with nothing to write still joins the collective write with an empty selection.
      std::vector<hsize_t> extent(dims.size(), 1);
      H5Handle space(check_id(H5Screate_simple(int(extent.size()), extent.data(), nullptr),
                              "H5Screate_simple"), H5Sclose);
      check_status(H5Sselect_none(space.get()), "H5Sselect_none");
      return space;
    }
    H5Handle space(check_id(H5Screate_simple(int(dims.size()), dims.data(), nullptr),
                            "H5Screate_simple"), H5Sclose);
    check_status(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr,
                                     count.data(), nullptr),
                 "H5Sselect_hyperslab");
    return space;
  }
};

// Rows [offset, offset + count) of a dataset with `global_rows` rows of `columns` values each,
// held in a local buffer of exactly those rows.
std::pair<Selection, Selection> row_block(int64_t global_rows, int columns, int64_t offset,
                                          int64_t count) {
  Selection file, memory;
  file.dims = {hsize_t(global_rows)};
  file.start = {hsize_t(offset)};
  file.count = {hsize_t(count)};
  memory.dims = {hsize_t(count)};
  memory.start = {0};
  memory.count = {hsize_t(count)};
  if (columns > 1) {
    for (Selection* s : {&file, &memory}) {
      s->dims.push_back(hsize_t(columns));
      s->start.push_back(0);
      s->count.push_back(hsize_t(columns));
    }
  }
  return {file, memory};
}

// Property lists shared by every dataset of a frame.
struct WriteProperties {
  H5Handle dataset_create, transfer;
};

WriteProperties make_write_properties() {
  WriteProperties props;
  props.dataset_create = H5Handle(check_id(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate"), H5Pclose);
  check_status(H5Pset_layout(props.dataset_create.get(), H5D_CONTIGUOUS), "H5Pset_layout");
  // Parallel HDF5 allocates datasets when they are created; without this it would also write
  // fill values over the whole dataset before our data, doubling the bytes written.
  check_status(H5Pset_fill_time(props.dataset_create.get(), H5D_FILL_TIME_NEVER),
               "H5Pset_fill_time");
  props.transfer = H5Handle(check_id(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate"), H5Pclose);
  check_status(H5Pset_dxpl_mpio(props.transfer.get(), H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");
  return props;
}

// Creates dataset `name` under `parent` with the file selection's extent and writes this
// rank's block in one collective call.
void write_dataset(hid_t parent, const std::string& name, hid_t file_type, hid_t memory_type,
                   const Selection& file, const Selection& memory, const void* data,
                   const WriteProperties& props) {
  H5Handle global_space(
      check_id(H5Screate_simple(int(file.dims.size()), file.dims.data(), nullptr),
               "H5Screate_simple"),
      H5Sclose);
  H5Handle dataset(check_id(H5Dcreate2(parent, name.c_str(), file_type, global_space.get(),
                                       H5P_DEFAULT, props.dataset_create.get(), H5P_DEFAULT),
                            "H5Dcreate2"),
                   H5Dclose);
  // An empty dataset has no storage to write to, and HDF5 fails even on an empty selection.
  for (hsize_t extent : file.dims)
    if (extent == 0) return;
  H5Handle file_space = file.space();
  H5Handle memory_space = memory.space();
  // HDF5 rejects a null buffer even for an empty selection on some versions.
  static const double no_data = 0;
  check_status(H5Dwrite(dataset.get(), memory_type, memory_space.get(), file_space.get(),
                        props.transfer.get(), data ? data : &no_data),
               "H5Dwrite");
}

H5Handle variable_string_type() {
  H5Handle type(check_id(H5Tcopy(H5T_C_S1), "H5Tcopy"), H5Tclose);
  check_status(H5Tset_size(type.get(), H5T_VARIABLE), "H5Tset_size");
  check_status(H5Tset_cset(type.get(), H5T_CSET_UTF8), "H5Tset_cset");
  return type;
}

// Attributes are metadata: every rank calls these with the same values.
void write_attribute(hid_t object, const char* name, hid_t file_type, hid_t memory_type,
                     const void* value) {
  H5Handle space(check_id(H5Screate(H5S_SCALAR), "H5Screate"), H5Sclose);
  H5Handle attribute(check_id(H5Acreate2(object, name, file_type, space.get(), H5P_DEFAULT,
                                         H5P_DEFAULT),
                              "H5Acreate2"),
                     H5Aclose);
  check_status(H5Awrite(attribute.get(), memory_type, value), "H5Awrite");
}

void write_string_attribute(hid_t object, const char* name, const std::string& value) {
  H5Handle type = variable_string_type();
  const char* text = value.c_str();
  write_attribute(object, name, type.get(), type.get(), &text);
}

void write_string_list_attribute(hid_t object, const char* name,
                                 const std::vector<std::string>& values) {
  if (values.empty()) return;  // an attribute cannot have an empty extent
  H5Handle type = variable_string_type();
  hsize_t count = values.size();
  H5Handle space(check_id(H5Screate_simple(1, &count, nullptr), "H5Screate_simple"), H5Sclose);
  H5Handle attribute(check_id(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT,
                                         H5P_DEFAULT),
                              "H5Acreate2"),
                     H5Aclose);
  std::vector<const char*> texts;
  for (const std::string& v : values) texts.push_back(v.c_str());
  check_status(H5Awrite(attribute.get(), type.get(), texts.data()), "H5Awrite");
}

// The file and memory selections that write a field's owned cells, in (z, y, x) order.
std::pair<Selection, Selection> grid_block(const GridFieldView& field,
                                           const std::array<int, 3>& global_cells) {
  if (!field.array) throw std::runtime_error("grid field '" + field.name + "' has no array");
  if (field.array->stagger() != Stagger::Cell) {
    throw std::runtime_error("grid field '" + field.name + "' is not cell-centred");
  }
  const Box global{{0, 0, 0}, global_cells};
  const Box& owned = field.owned;
  const Box& stored = field.array->box();
  if (!owned.empty() && (!(owned.intersect(stored) == owned) ||
                         !(owned.intersect(global) == owned))) {
    throw std::runtime_error("grid field '" + field.name +
                             "': owned box lies outside its array or the grid");
  }
  Selection file, memory;
  for (int axis = 2; axis >= 0; --axis) {
    int extent = owned.empty() ? 0 : owned.hi[axis] - owned.lo[axis];
    file.dims.push_back(hsize_t(global_cells[axis]));
    file.start.push_back(owned.empty() ? 0 : hsize_t(owned.lo[axis]));
    file.count.push_back(hsize_t(extent));
    // The array holds ghost layers around the owned cells; select only the owned block.
    memory.dims.push_back(hsize_t(stored.hi[axis] - stored.lo[axis]));
    memory.start.push_back(owned.empty() ? 0 : hsize_t(owned.lo[axis] - stored.lo[axis]));
    memory.count.push_back(hsize_t(extent));
  }
  return {file, memory};
}

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

// Writes `text` to `path` through a temporary file, so readers never see a partial file.
void replace_file(const fs::path& path, const std::string& text) {
  fs::path temporary = path;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw std::runtime_error("cannot write " + temporary.string());
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) {
    throw std::runtime_error("cannot rename " + temporary.string() + ": " + error.message());
  }
}

// An HDF5 reference in an XDMF DataItem.
std::string data_item(const std::string& dimensions, const char* number_type, int precision,
                      const std::string& h5_name, const std::string& dataset) {
  return fmt::format(
      "<DataItem Dimensions=\"{}\" NumberType=\"{}\" Precision=\"{}\" Format=\"HDF\">"
      "{}:{}</DataItem>",
      dimensions, number_type, precision, xml_escape(h5_name), xml_escape(dataset));
}

const char* const kXdmfHeader =
    "<?xml version=\"1.0\" ?>\n"
    "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
    "<Xdmf Version=\"3.0\">\n"
    "  <Domain>\n";
const char* const kXdmfFooter =
    "    </Grid>\n"
    "  </Domain>\n"
    "</Xdmf>\n";

}  // namespace

FrameWriter::FrameWriter(MPI_Comm comm, std::string directory, std::string case_name,
                         std::vector<std::string> material_names,
                         std::array<int, 3> global_cells, double cell_size)
    : comm_(comm),
      directory_(std::move(directory)),
      case_name_(std::move(case_name)),
      material_names_(std::move(material_names)),
      global_cells_(global_cells),
      cell_size_(cell_size) {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  // The agreement doubles as the barrier: no rank writes before the directory exists.
  run_agreed(comm_, directory_, [&] {
    if (rank != 0) return;
    std::error_code error;
    fs::create_directories(directory_, error);
    if (error) throw std::runtime_error("cannot create the output directory: " + error.message());
  });
}

std::string FrameWriter::write(const Particles& particles, double time, int64_t step,
                               const std::vector<GridFieldView>& grid_fields) {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  const int64_t frame = int64_t(frames_.size());
  const std::string h5_name = fmt::format("{}_{:06d}.h5", case_name_, frame);
  const std::string final_path = (fs::path(directory_) / h5_name).string();
  const std::string temporary_path = final_path + ".tmp";

  const int64_t local_count = int64_t(particles.size());
  int64_t offset = 0, total = 0;
  MPI_Exscan(&local_count, &offset, 1, MPI_INT64_T, MPI_SUM, comm_);
  if (rank == 0) offset = 0;  // MPI_Exscan leaves rank 0's result undefined
  MPI_Allreduce(&local_count, &total, 1, MPI_INT64_T, MPI_SUM, comm_);

  // Everything that can fail on one rank alone happens here, before any collective HDF5 call.
  std::vector<double> xyz;
  std::vector<int64_t> connectivity;
  std::vector<std::pair<Selection, Selection>> grid_blocks;
  run_agreed(comm_, final_path, [&] {
    const size_t n = particles.size();
    for (size_t size : {particles.x.size(), particles.y.size(), particles.z.size(),
                        particles.vx.size(), particles.vy.size(), particles.vz.size(),
                        particles.material.size()}) {
      if (size != n) throw std::runtime_error("particle arrays differ in length");
    }
    xyz.resize(3 * n);
    connectivity.resize(n);
    for (size_t p = 0; p < n; ++p) connectivity[p] = offset + int64_t(p);
    for (const GridFieldView& field : grid_fields) {
      grid_blocks.push_back(grid_block(field, global_cells_));
    }
  });
  // Ranks that disagree on the field list would create different datasets collectively.
  int field_counts[2] = {int(grid_fields.size()), -int(grid_fields.size())};
  MPI_Allreduce(MPI_IN_PLACE, field_counts, 2, MPI_INT, MPI_MAX, comm_);
  if (field_counts[0] != -field_counts[1]) {
    throw std::runtime_error(final_path + ": ranks passed different numbers of grid fields");
  }

  QuietHdf5Errors quiet;
  try {
    H5Handle file;
    run_agreed(comm_, final_path, [&] {
      H5Handle access(check_id(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate"), H5Pclose);
      check_status(H5Pset_fapl_mpio(access.get(), comm_, MPI_INFO_NULL), "H5Pset_fapl_mpio");
      // Metadata is read once and broadcast, and written in aggregated collective writes,
      // instead of every rank issuing small independent I/O for it.
      check_status(H5Pset_all_coll_metadata_ops(access.get(), true),
                   "H5Pset_all_coll_metadata_ops");
      check_status(H5Pset_coll_metadata_write(access.get(), true), "H5Pset_coll_metadata_write");
      // Large datasets start on file-system block boundaries (the usual Lustre stripe size).
      check_status(H5Pset_alignment(access.get(), 1 << 20, 1 << 20), "H5Pset_alignment");
      file = H5Handle(check_id(H5Fcreate(temporary_path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT,
                                         access.get()),
                               "H5Fcreate"),
                      H5Fclose);
    });

    run_agreed(comm_, final_path, [&] {
      const WriteProperties props = make_write_properties();
      const hid_t root = file.get();
      write_attribute(root, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &time);
      write_attribute(root, "step", H5T_STD_I64LE, H5T_NATIVE_INT64, &step);
      write_attribute(root, "frame", H5T_STD_I64LE, H5T_NATIVE_INT64, &frame);
      write_attribute(root, "particle_count", H5T_STD_I64LE, H5T_NATIVE_INT64, &total);
      write_string_attribute(root, "case_name", case_name_);

      H5Handle group(check_id(H5Gcreate2(root, "particles", H5P_DEFAULT, H5P_DEFAULT,
                                         H5P_DEFAULT),
                              "H5Gcreate2 particles"),
                     H5Gclose);
      const size_t n = particles.size();
      auto [vector_file, vector_memory] = row_block(total, 3, offset, local_count);
      auto [scalar_file, scalar_memory] = row_block(total, 1, offset, local_count);

      // One interleaving buffer serves position and then velocity.
      for (size_t p = 0; p < n; ++p) {
        xyz[3 * p] = particles.x[p];
        xyz[3 * p + 1] = particles.y[p];
        xyz[3 * p + 2] = particles.z[p];
      }
      write_dataset(group.get(), "position", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, vector_file,
                    vector_memory, xyz.data(), props);
      for (size_t p = 0; p < n; ++p) {
        xyz[3 * p] = particles.vx[p];
        xyz[3 * p + 1] = particles.vy[p];
        xyz[3 * p + 2] = particles.vz[p];
      }
      write_dataset(group.get(), "velocity", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, vector_file,
                    vector_memory, xyz.data(), props);
      write_dataset(group.get(), "id", H5T_STD_I64LE, H5T_NATIVE_INT64, scalar_file,
                    scalar_memory, particles.id.data(), props);
      write_dataset(group.get(), "material", H5T_STD_U8LE, H5T_NATIVE_UINT8, scalar_file,
                    scalar_memory, particles.material.data(), props);
      write_dataset(group.get(), "connectivity", H5T_STD_I64LE, H5T_NATIVE_INT64, scalar_file,
                    scalar_memory, connectivity.data(), props);
      {
        H5Handle material(check_id(H5Dopen2(group.get(), "material", H5P_DEFAULT), "H5Dopen2"),
                          H5Dclose);
        write_string_list_attribute(material.get(), "names", material_names_);
      }

      if (!grid_fields.empty()) {
        H5Handle grid(check_id(H5Gcreate2(root, "grid", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                               "H5Gcreate2 grid"),
                      H5Gclose);
        write_attribute(grid.get(), "cell_size", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &cell_size_);
        for (size_t f = 0; f < grid_fields.size(); ++f) {
          write_dataset(grid.get(), grid_fields[f].name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                        grid_blocks[f].first, grid_blocks[f].second,
                        grid_fields[f].array->data(), props);
        }
      }
    });

    run_agreed(comm_, final_path, [&] { check_status(file.close(), "H5Fclose"); });
    // The file is complete on disk; only now may it appear under its final name.
    MPI_Barrier(comm_);
    run_agreed(comm_, final_path, [&] {
      if (rank != 0) return;
      std::error_code error;
      fs::rename(temporary_path, final_path, error);
      if (error) throw std::runtime_error("cannot rename the finished frame: " + error.message());
    });
  } catch (...) {
    if (rank == 0) {
      std::error_code ignored;
      fs::remove(temporary_path, ignored);
    }
    throw;
  }

  FrameRecord record{h5_name, time, total, {}};
  for (const GridFieldView& field : grid_fields) record.grid_fields.push_back(field.name);
  frames_.push_back(std::move(record));
  run_agreed(comm_, (fs::path(directory_) / (case_name_ + ".xmf")).string(), [&] {
    if (rank == 0) write_xdmf();
  });
  return final_path;
}

void FrameWriter::write_xdmf() const {
  std::string particles = kXdmfHeader;
  particles +=
      "    <Grid Name=\"particles\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  std::string grid = kXdmfHeader;
  grid += "    <Grid Name=\"grid\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  bool any_grid_fields = false;

  const std::string cells = fmt::format("{} {} {}", global_cells_[2], global_cells_[1],
                                        global_cells_[0]);
  const std::string nodes = fmt::format("{} {} {}", global_cells_[2] + 1, global_cells_[1] + 1,
                                        global_cells_[0] + 1);
  for (const FrameRecord& frame : frames_) {
    const int64_t n = frame.particle_count;
    const std::string rows = fmt::format("{}", n);
    const std::string rows3 = fmt::format("{} 3", n);
    particles += fmt::format(
        "      <Grid Name=\"particles\" GridType=\"Uniform\">\n"
        "        <Time Value=\"{}\"/>\n"
        "        <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"{}\" "
        "NodesPerElement=\"1\">\n"
        "          {}\n"
        "        </Topology>\n"
        "        <Geometry GeometryType=\"XYZ\">\n"
        "          {}\n"
        "        </Geometry>\n"
        "        <Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Node\">\n"
        "          {}\n"
        "        </Attribute>\n"
        "        <Attribute Name=\"id\" AttributeType=\"Scalar\" Center=\"Node\">\n"
        "          {}\n"
        "        </Attribute>\n"
        "        <Attribute Name=\"material\" AttributeType=\"Scalar\" Center=\"Node\">\n"
        "          {}\n"
        "        </Attribute>\n"
        "      </Grid>\n",
        frame.time, n, data_item(rows, "Int", 8, frame.h5_name, "/particles/connectivity"),
        data_item(rows3, "Float", 8, frame.h5_name, "/particles/position"),
        data_item(rows3, "Float", 8, frame.h5_name, "/particles/velocity"),
        data_item(rows, "Int", 8, frame.h5_name, "/particles/id"),
        data_item(rows, "UChar", 1, frame.h5_name, "/particles/material"));

    if (frame.grid_fields.empty()) continue;
    any_grid_fields = true;
    // Cell-centred values on a regular mesh whose nodes are the cell corners; XDMF lists
    // dimensions, origin and spacing slowest axis first (z, y, x).
    grid += fmt::format(
        "      <Grid Name=\"grid\" GridType=\"Uniform\">\n"
        "        <Time Value=\"{}\"/>\n"
        "        <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"{}\"/>\n"
        "        <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
        "          <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
        "Format=\"XML\">0 0 0</DataItem>\n"
        "          <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
        "Format=\"XML\">{} {} {}</DataItem>\n"
        "        </Geometry>\n",
        frame.time, nodes, cell_size_, cell_size_, cell_size_);
    for (const std::string& name : frame.grid_fields) {
      grid += fmt::format(
          "        <Attribute Name=\"{}\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
          "          {}\n"
          "        </Attribute>\n",
          xml_escape(name), data_item(cells, "Float", 8, frame.h5_name, "/grid/" + name));
    }
    grid += "      </Grid>\n";
  }
  particles += kXdmfFooter;
  grid += kXdmfFooter;

  const fs::path directory(directory_);
  replace_file(directory / (case_name_ + ".xmf"), particles);
  if (any_grid_fields) replace_file(directory / (case_name_ + "_grid.xmf"), grid);
}

}  // namespace dunesim

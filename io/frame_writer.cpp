// Output frames: every rank writes its slice of each dataset into one shared HDF5 file with a
// single collective H5Dwrite, and rank 0 keeps an XDMF series that indexes the files.
#include "io/frame_writer.hpp"
#include "io/file_replacement.hpp"

#include <fmt/format.h>
#include <hdf5.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "io/file_room.hpp"
#include "io/parallel_file.hpp"
#include "io/parallel_hdf5.hpp"
#include "io/xml_escape.hpp"

namespace dunesim {
namespace {

namespace fs = std::filesystem;

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
  if (!owned.empty() &&
      (!(owned.intersect(stored) == owned) || !(owned.intersect(global) == owned))) {
    throw std::runtime_error("grid field '" + field.name +
                             "': owned box lies outside its array or the grid");
  }
  return cell_block(owned, stored, global_cells);
}

// An HDF5 reference in an XDMF DataItem.
std::string data_item(const std::string& dimensions, const char* number_type, int precision,
                      const std::string& h5_name, const std::string& dataset) {
  return fmt::format(
      "<DataItem Dimensions=\"{}\" NumberType=\"{}\" Precision=\"{}\" Format=\"HDF\">"
      "{}:{}</DataItem>",
      dimensions, number_type, precision, xml_escape(h5_name), xml_escape(dataset));
}

// One field-data value per material, named "material: NAME" and holding the value the
// `material` point array takes for it: how ParaView shows the names (Information panel,
// spreadsheet view), since its XDMF readers turn no string into an array.
std::string material_name_field_data(const std::vector<std::string>& names) {
  std::string xml;
  for (size_t m = 0; m < names.size(); ++m)
    xml += fmt::format(
        "        <Attribute Name=\"material: {}\" AttributeType=\"Scalar\" Center=\"Grid\">\n"
        "          <DataItem Dimensions=\"1\" NumberType=\"UChar\" Precision=\"1\" "
        "Format=\"XML\">{}</DataItem>\n"
        "        </Attribute>\n",
        xml_escape(names[m]), m);
  return xml;
}

std::string frame_file_name(const std::string& case_name, int64_t frame) {
  return fmt::format("{}_{:06d}.h5", case_name, frame);
}

// The bytes of one element of a finished frame's dataset (8 for float64, 4 for float32).
int stored_element_bytes(hid_t file, const char* dataset) {
  H5Handle data(check_id(H5Dopen2(file, dataset, H5P_DEFAULT), "H5Dopen2"), H5Dclose);
  H5Handle type(check_id(H5Dget_type(data.get()), "H5Dget_type"), H5Tclose);
  return int(H5Tget_size(type.get()));
}

// The grid fields a finished frame holds, read serially to continue its series.
std::vector<std::string> grid_field_names(hid_t file) {
  std::vector<std::string> names;
  if (H5Lexists(file, "grid", H5P_DEFAULT) <= 0) return names;
  H5Handle grid(check_id(H5Gopen2(file, "grid", H5P_DEFAULT), "H5Gopen2 grid"), H5Gclose);
  H5G_info_t info;
  check_status(H5Gget_info(grid.get(), &info), "H5Gget_info");
  for (hsize_t n = 0; n < info.nlinks; ++n) {
    ssize_t length = H5Lget_name_by_idx(grid.get(), ".", H5_INDEX_NAME, H5_ITER_INC, n, nullptr,
                                        0, H5P_DEFAULT);
    if (length < 0) check_status(-1, "H5Lget_name_by_idx");
    std::string name(size_t(length), '\0');
    H5Lget_name_by_idx(grid.get(), ".", H5_INDEX_NAME, H5_ITER_INC, n, name.data(),
                       name.size() + 1, H5P_DEFAULT);
    names.push_back(name);
  }
  return names;
}

}  // namespace

int connectivity_bytes(int64_t particles) {
  return particles <= std::numeric_limits<int32_t>::max() ? 4 : 8;
}

uint64_t frame_file_bytes(int64_t particles, const std::array<int, 3>& cells, size_t fields,
                          bool single_precision, uint64_t run_bytes) {
  const uint64_t n = uint64_t(particles);
  const uint64_t real = single_precision ? 4 : 8;
  const uint64_t index = uint64_t(connectivity_bytes(particles));
  // In the order write() creates them: position, velocity, water_content, id, material,
  // saturation, connectivity, rank, then the grid fields.
  std::vector<DatasetSize> datasets{{3 * real * n, 3 * real},
                                    {3 * real * n, 3 * real},
                                    {real * n, real},
                                    {8 * n, 8},
                                    {n, 1},
                                    {4 * n, 4},
                                    {index * n, index},
                                    {4 * n, 4}};
  const uint64_t slab = 8 * uint64_t(cells[0]) * uint64_t(cells[1]);
  datasets.insert(datasets.end(), fields, DatasetSize{slab * uint64_t(cells[2]), slab});
  return estimated_file_bytes(datasets, Checksums::No) + run_bytes;
}

namespace {

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

// A water particle is told apart from porous sand by its material's zero porosity and a
// water content that is not zero.
float saturation_at(const Particles& p, const std::vector<double>& porosity, size_t n) {
  const double pores = p.material[n] < porosity.size() ? porosity[p.material[n]] : 0.0;
  const double water = p.water_of(n);
  return pores > 0 ? float(water / pores) : (water > 0 ? 1.f : 0.f);
}

std::vector<float> saturation_of(const Particles& p, const std::vector<double>& porosity) {
  std::vector<float> s(p.size());
  for (size_t n = 0; n < p.size(); ++n) s[n] = saturation_at(p, porosity, n);
  return s;
}

FrameWriter::FrameWriter(MPI_Comm comm, std::string directory, std::string case_name,
                         RunRecord run, std::vector<double> material_porosity,
                         FrameOptions options)
    : comm_(comm),
      directory_(std::move(directory)),
      case_name_(std::move(case_name)),
      run_(std::move(run)),
      material_porosity_(std::move(material_porosity)),
      options_(options),
      global_cells_{int(run_.cells[0]), int(run_.cells[1]), int(run_.cells[2])},
      cell_size_(run_.cell_size) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_size(comm_, &ranks);
  run_.ranks = ranks;
  // The agreement doubles as the barrier: no rank writes before the directory exists.
  run_agreed(comm_, directory_, [&] {
    if (rank != 0) return;
    std::error_code error;
    fs::create_directories(directory_, error);
    if (error) throw std::runtime_error("cannot create the output directory: " + error.message());
  });
}

Particles particles_with_stride(const Particles& p, int64_t stride) {
  std::vector<size_t> kept;
  for (size_t n = 0; n < p.size(); ++n)
    if (p.id[n] % stride == 0) kept.push_back(n);  // negative ids too: -6 % 3 == 0
  std::vector<char> packed(kept.size() * p.packed_bytes());
  char* out = packed.data();
  for (size_t n : kept) out = p.pack(n, out);
  Particles selected;
  selected.carry_like(p);  // the packed layout includes the optional arrays then
  selected.append_packed(packed.data(), kept.size());
  return selected;
}

std::string FrameWriter::write(const Particles& all_particles, double time, int64_t step,
                               const std::vector<GridFieldView>& grid_fields) {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  Particles subset;
  if (options_.particle_stride > 1)
    subset = particles_with_stride(all_particles, options_.particle_stride);
  const Particles& particles = options_.particle_stride > 1 ? subset : all_particles;
  const int64_t frame = next_frame_;
  const std::string h5_name = frame_file_name(case_name_, frame);
  const std::string final_path = (fs::path(directory_) / h5_name).string();

  const int64_t local_count = int64_t(particles.size());
  const RankRows rows = rank_rows(comm_, local_count);

  // Everything that can fail on one rank alone happens here, before any collective HDF5 call.
  std::vector<std::pair<Selection, Selection>> grid_blocks;
  run_agreed(comm_, final_path, [&] {
    const size_t n = particles.size();
    for (size_t size :
         {particles.x.size(), particles.y.size(), particles.z.size(), particles.vx.size(),
          particles.vy.size(), particles.vz.size(), particles.material.size()}) {
      if (size != n) throw std::runtime_error("particle arrays differ in length");
    }
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

  auto write_contents = [&](hid_t root) {
    const WriteProperties props = make_write_properties(comm_);
    write_attribute(root, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &time);
    write_attribute(root, "step", H5T_STD_I64LE, H5T_NATIVE_INT64, &step);
    write_attribute(root, "frame", H5T_STD_I64LE, H5T_NATIVE_INT64, &frame);
    write_attribute(root, "particle_count", H5T_STD_I64LE, H5T_NATIVE_INT64, &rows.total);
    write_string_attribute(root, "case_name", case_name_);
    write_attribute(root, "particle_stride", H5T_STD_I64LE, H5T_NATIVE_INT64,
                    &options_.particle_stride);
    write_run_group(root, run_);
    write_particle_datasets(root, particles, rows);

    if (!grid_fields.empty()) {
      H5Handle grid(check_id(H5Gcreate2(root, "grid", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                             "H5Gcreate2 grid"),
                    H5Gclose);
      write_attribute(grid.get(), "cell_size", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &cell_size_);
      for (size_t f = 0; f < grid_fields.size(); ++f) {
        write_dataset(grid.get(), grid_fields[f].name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                      grid_blocks[f].first, grid_blocks[f].second, grid_fields[f].array->data(),
                      props);
      }
    }
  };
  auto publish = [&](const std::string& temporary_path) {
    std::error_code error;
    fs::rename(temporary_path, final_path, error);
    if (error) throw std::runtime_error("cannot rename the finished frame: " + error.message());
  };
  write_parallel_file(comm_, final_path, FlushToDisk::No,
                      frame_file_bytes(rows.total, global_cells_, grid_fields.size(),
                                       options_.single_precision, run_group_bytes(run_)),
                      write_contents, publish);

  FrameRecord record{h5_name,
                     time,
                     rows.total,
                     {},
                     options_.single_precision ? 4 : 8,
                     connectivity_bytes(rows.total)};
  for (const GridFieldView& field : grid_fields) record.grid_fields.push_back(field.name);
  frames_.push_back(std::move(record));
  ++next_frame_;
  run_agreed(comm_, (fs::path(directory_) / (case_name_ + ".xmf")).string(), [&] {
    if (rank == 0) write_xdmf();
  });
  return final_path;
}

namespace {

// Writes x, y, z interleaved as rows of three, converted to T (float64 or float32).
template <class T, class A, class B, class C>
void write_interleaved(hid_t group, const char* name, const A& a, const B& b, const C& c,
                       const RankRows& rows, const WriteProperties& props, size_t piece_bytes) {
  const bool single = sizeof(T) == 4;
  write_rows_in_pieces(
      group, name, single ? H5T_IEEE_F32LE : H5T_IEEE_F64LE,
      single ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE, rows, int64_t(a.size()), 3,
      [&](int64_t first, int64_t n, void* buffer) {
        T* xyz = static_cast<T*>(buffer);
        for (int64_t q = 0; q < n; ++q) {
          xyz[3 * q] = T(a[size_t(first + q)]);
          xyz[3 * q + 1] = T(b[size_t(first + q)]);
          xyz[3 * q + 2] = T(c[size_t(first + q)]);
        }
      },
      props, piece_bytes);
}

// Writes value(n) for each of this rank's rows n, in the memory type of T.
template <class T, class Value>
void write_computed(hid_t group, const char* name, hid_t file_type, hid_t memory_type,
                    const RankRows& rows, int64_t count, Value value,
                    const WriteProperties& props, size_t piece_bytes) {
  write_rows_in_pieces(
      group, name, file_type, memory_type, rows, count, 1,
      [&](int64_t first, int64_t n, void* buffer) {
        T* out = static_cast<T*>(buffer);
        for (int64_t q = 0; q < n; ++q) out[q] = value(first + q);
      },
      props, piece_bytes);
}

}  // namespace

// Collective: the particle group of a frame, this rank's rows of `rows`. What the file holds
// in another type or layout than the particles is made a piece at a time
// (write_rows_in_pieces), so a frame needs a small buffer, not a copy of the particles.
void FrameWriter::write_particle_datasets(hid_t root, const Particles& particles,
                                          const RankRows& rows) const {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  const WriteProperties props = make_write_properties(comm_);
  H5Handle group(check_id(H5Gcreate2(root, "particles", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                          "H5Gcreate2 particles"),
                 H5Gclose);
  const hid_t g = group.get();
  const Particles& p = particles;
  const int64_t n = int64_t(p.size());
  const auto [scalar_file, scalar_memory] = row_block(rows.total, 1, rows.offset, n);
  const size_t piece = options_.piece_bytes;
  if (options_.single_precision) {
    write_interleaved<float>(g, "position", p.x, p.y, p.z, rows, props, piece);
    write_interleaved<float>(g, "velocity", p.vx, p.vy, p.vz, rows, props, piece);
    write_computed<float>(
        g, "water_content", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, rows, n,
        [&](int64_t q) { return float(p.water_of(size_t(q))); }, props, piece);
  } else {
    write_interleaved<double>(g, "position", p.x, p.y, p.z, rows, props, piece);
    write_interleaved<double>(g, "velocity", p.vx, p.vy, p.vz, rows, props, piece);
    if (p.carries_water)
      write_dataset(g, "water_content", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, scalar_file,
                    scalar_memory, p.water_content.data(), props);
    else
      write_computed<double>(
          g, "water_content", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, rows, n,
          [&](int64_t q) { return p.water_of(size_t(q)); }, props, piece);
  }
  write_dataset(g, "id", H5T_STD_I64LE, H5T_NATIVE_INT64, scalar_file, scalar_memory, p.id.data(),
                props);
  write_dataset(g, "material", H5T_STD_U8LE, H5T_NATIVE_UINT8, scalar_file, scalar_memory,
                p.material.data(), props);
  write_computed<float>(
      g, "saturation", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, rows, n,
      [&](int64_t q) { return saturation_at(p, material_porosity_, size_t(q)); }, props, piece);
  // 0 .. N-1 (what XDMF's Polyvertex cells are made of), in 4 bytes where they fit.
  if (connectivity_bytes(rows.total) == 4)
    write_computed<int32_t>(
        g, "connectivity", H5T_STD_I32LE, H5T_NATIVE_INT32, rows, n,
        [&](int64_t q) { return int32_t(rows.offset + q); }, props, piece);
  else
    write_computed<int64_t>(
        g, "connectivity", H5T_STD_I64LE, H5T_NATIVE_INT64, rows, n,
        [&](int64_t q) { return rows.offset + q; }, props, piece);
  // The rank that owns each particle, so a viewer can show the domain decomposition.
  write_computed<int32_t>(
      g, "rank", H5T_STD_I32LE, H5T_NATIVE_INT32, rows, n, [&](int64_t) { return int32_t(rank); },
      props, piece);
  H5Handle material(check_id(H5Dopen2(g, "material", H5P_DEFAULT), "H5Dopen2"), H5Dclose);
  write_string_list_attribute(material.get(), "names", run_.material_names);
}

void FrameWriter::continue_series(int64_t frames_before) {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  next_frame_ = frames_before;
  frames_.clear();
  // Only rank 0 writes the series, so only it needs the earlier frames' records.
  run_agreed(comm_, directory_, [&] {
    if (rank != 0) return;
    QuietHdf5Errors quiet;
    for (int64_t frame = 0; frame < frames_before; ++frame) {
      const std::string h5_name = frame_file_name(case_name_, frame);
      const fs::path path = fs::path(directory_) / h5_name;
      // A restart may write into a new directory: the series then starts where it does.
      if (!fs::exists(path)) continue;
      try {
        H5Handle file(check_id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "H5Fopen"),
                      H5Fclose);
        FrameRecord record{h5_name,
                           0,
                           0,
                           grid_field_names(file.get()),
                           stored_element_bytes(file.get(), "particles/position"),
                           stored_element_bytes(file.get(), "particles/connectivity")};
        read_attribute(file.get(), "time", H5T_NATIVE_DOUBLE, &record.time);
        read_attribute(file.get(), "particle_count", H5T_NATIVE_INT64, &record.particle_count);
        frames_.push_back(std::move(record));
      } catch (const std::exception& e) {
        throw std::runtime_error("cannot read the earlier frame " + h5_name +
                                 " to continue the XDMF series: " + e.what());
      }
    }
  });
}

void FrameWriter::write_xdmf() const {
  std::string particles = kXdmfHeader;
  particles +=
      "    <Grid Name=\"particles\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  std::string grid = kXdmfHeader;
  grid += "    <Grid Name=\"grid\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  bool any_grid_fields = false;

  const std::string cells =
      fmt::format("{} {} {}", global_cells_[2], global_cells_[1], global_cells_[0]);
  const std::string nodes =
      fmt::format("{} {} {}", global_cells_[2] + 1, global_cells_[1] + 1, global_cells_[0] + 1);
  const std::string material_name_attributes = material_name_field_data(run_.material_names);
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
        "        <Attribute Name=\"rank\" AttributeType=\"Scalar\" Center=\"Node\">\n"
        "          {}\n"
        "        </Attribute>\n"
        "        <Attribute Name=\"saturation\" AttributeType=\"Scalar\" Center=\"Node\">\n"
        "          {}\n"
        "        </Attribute>\n"
        "        <Attribute Name=\"water_content\" AttributeType=\"Scalar\" Center=\"Node\">\n"
        "          {}\n"
        "        </Attribute>\n"
        "{}"
        "      </Grid>\n",
        frame.time, n,
        data_item(rows, "Int", frame.connectivity_bytes, frame.h5_name,
                  "/particles/connectivity"),
        data_item(rows3, "Float", frame.float_bytes, frame.h5_name, "/particles/position"),
        data_item(rows3, "Float", frame.float_bytes, frame.h5_name, "/particles/velocity"),
        data_item(rows, "Int", 8, frame.h5_name, "/particles/id"),
        data_item(rows, "UChar", 1, frame.h5_name, "/particles/material"),
        data_item(rows, "Int", 4, frame.h5_name, "/particles/rank"),
        data_item(rows, "Float", 4, frame.h5_name, "/particles/saturation"),
        data_item(rows, "Float", frame.float_bytes, frame.h5_name, "/particles/water_content"),
        material_name_attributes);

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

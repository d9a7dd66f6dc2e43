#include "io/parallel_hdf5.hpp"

#include <algorithm>
#include <functional>
#include <filesystem>
#include <system_error>

#include "io/file_room.hpp"

namespace dunesim {

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

bool Selection::empty() const {
  for (hsize_t c : count)
    if (c == 0) return true;
  return false;
}

H5Handle Selection::space() const {
  if (empty()) {
    // A rank with nothing to transfer still joins the collective call with an empty selection.
    std::vector<hsize_t> extent(dims.size(), 1);
    H5Handle space(check_id(H5Screate_simple(int(extent.size()), extent.data(), nullptr),
                            "H5Screate_simple"),
                   H5Sclose);
    check_status(H5Sselect_none(space.get()), "H5Sselect_none");
    return space;
  }
  H5Handle space(check_id(H5Screate_simple(int(dims.size()), dims.data(), nullptr),
                          "H5Screate_simple"),
                 H5Sclose);
  check_status(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr,
                                   count.data(), nullptr),
               "H5Sselect_hyperslab");
  return space;
}

RankRows rank_rows(MPI_Comm comm, int64_t count) {
  RankRows rows;
  MPI_Exscan(&count, &rows.offset, 1, MPI_INT64_T, MPI_SUM, comm);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) rows.offset = 0;  // MPI_Exscan leaves rank 0's result undefined
  MPI_Allreduce(&count, &rows.total, 1, MPI_INT64_T, MPI_SUM, comm);
  return rows;
}

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

std::pair<Selection, Selection> cell_block(const Box& cells, const Box& stored,
                                           const std::array<int, 3>& global_cells) {
  Selection file, memory;
  for (int axis = 2; axis >= 0; --axis) {
    int extent = cells.empty() ? 0 : cells.hi[axis] - cells.lo[axis];
    file.dims.push_back(hsize_t(global_cells[axis]));
    file.start.push_back(cells.empty() ? 0 : hsize_t(cells.lo[axis]));
    file.count.push_back(hsize_t(extent));
    // The array holds ghost layers around the cells; select only the cells.
    memory.dims.push_back(hsize_t(stored.hi[axis] - stored.lo[axis]));
    memory.start.push_back(cells.empty() ? 0 : hsize_t(cells.lo[axis] - stored.lo[axis]));
    memory.count.push_back(hsize_t(extent));
  }
  return {file, memory};
}

namespace {

H5Handle parallel_file_access(MPI_Comm comm) {
  H5Handle access(check_id(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate"), H5Pclose);
  check_status(H5Pset_fapl_mpio(access.get(), comm, MPI_INFO_NULL), "H5Pset_fapl_mpio");
  // Metadata is read once and broadcast, and written in aggregated collective writes,
  // instead of every rank issuing small independent I/O for it.
  check_status(H5Pset_all_coll_metadata_ops(access.get(), true), "H5Pset_all_coll_metadata_ops");
  check_status(H5Pset_coll_metadata_write(access.get(), true), "H5Pset_coll_metadata_write");
  // Large datasets start on file-system block boundaries (the usual Lustre stripe size).
  check_status(H5Pset_alignment(access.get(), 1 << 20, 1 << 20), "H5Pset_alignment");
  return access;
}

}  // namespace

H5Handle create_parallel_file(MPI_Comm comm, const std::string& path) {
  H5Handle access = parallel_file_access(comm);
  return H5Handle(check_id(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()),
                           "H5Fcreate"),
                  H5Fclose);
}

H5Handle open_parallel_file(MPI_Comm comm, const std::string& path) {
  H5Handle access = parallel_file_access(comm);
  return H5Handle(check_id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, access.get()), "H5Fopen"),
                  H5Fclose);
}

WriteProperties make_write_properties(MPI_Comm comm, Checksums checksums) {
  WriteProperties props;
  props.comm = comm;
  props.checksums = checksums;
  props.dataset_create = H5Handle(check_id(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate"), H5Pclose);
  // Parallel HDF5 allocates datasets when they are created; without this it would also write
  // fill values over the whole dataset before our data, doubling the bytes written.
  check_status(H5Pset_fill_time(props.dataset_create.get(), H5D_FILL_TIME_NEVER),
               "H5Pset_fill_time");
  props.transfer = collective_transfer();
  return props;
}

ReadProperties make_read_properties(MPI_Comm comm) {
  ReadProperties props;
  props.comm = comm;
  props.transfer = collective_transfer();
  return props;
}

H5Handle collective_transfer() {
  H5Handle transfer(check_id(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate"), H5Pclose);
  check_status(H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");
  // Checksummed (chunked) datasets in one collective operation over all chunks, as a
  // precaution: chunk by chunk, a rank whose chunk failed its checksum could leave the loop
  // of per-chunk collective calls that the other ranks are still in.
  check_status(H5Pset_dxpl_mpio_chunk_opt(transfer.get(), H5FD_MPIO_CHUNK_ONE_IO),
               "H5Pset_dxpl_mpio_chunk_opt");
  return transfer;
}

namespace {

// The creation properties of a dataset of extent `dims`: contiguous, or chunked with the
// Fletcher32 filter (filters need chunks; an empty dataset has no data to check).
H5Handle dataset_creation(const WriteProperties& props, hid_t file_type,
                          const std::vector<hsize_t>& dims) {
  H5Handle create(check_id(H5Pcopy(props.dataset_create.get()), "H5Pcopy"), H5Pclose);
  const bool empty = std::find(dims.begin(), dims.end(), hsize_t(0)) != dims.end();
  if (props.checksums == Checksums::No || empty || dims.empty()) {
    check_status(H5Pset_layout(create.get(), H5D_CONTIGUOUS), "H5Pset_layout");
    return create;
  }
  // Chunks of kChunkBytes at most, cut along the slowest axis (one slab of a grid larger
  // than 23,000 x 23,000 cells would pass HDF5's 4 GiB limit on a chunk).
  hsize_t slab_bytes = H5Tget_size(file_type);  // one index of the slowest axis
  for (size_t axis = 1; axis < dims.size(); ++axis) slab_bytes *= dims[axis];
  std::vector<hsize_t> chunk = dims;
  chunk[0] = std::clamp<hsize_t>(kChunkBytes / std::max<hsize_t>(slab_bytes, 1), 1, dims[0]);
  check_status(H5Pset_chunk(create.get(), int(chunk.size()), chunk.data()), "H5Pset_chunk");
  check_status(H5Pset_fletcher32(create.get()), "H5Pset_fletcher32");
  return create;
}

// The path of an open object inside its file ("/particles/x"), for messages.
std::string object_path(hid_t object) {
  char name[512] = "";
  if (H5Iget_name(object, name, sizeof name) <= 0) return "?";
  return name;
}

bool any_extent_zero(const Selection& selection) {
  for (hsize_t extent : selection.dims)
    if (extent == 0) return true;
  return false;
}

// HDF5 rejects a null buffer even for an empty selection on some versions.
double no_data = 0;

// Bytes of one row of `columns` values of `memory_type`.
size_t row_bytes_of(hid_t memory_type, int columns) {
  return H5Tget_size(memory_type) * size_t(columns);
}

// Rows of `columns` values of `memory_type` in a piece of `piece_bytes` (at least one).
int64_t rows_per_piece(hid_t memory_type, int columns, size_t piece_bytes) {
  return std::max<int64_t>(1, int64_t(piece_bytes / row_bytes_of(memory_type, columns)));
}

// Collective: how many pieces of `piece_rows` rows every rank takes part in, the most any
// rank's `count` rows need (a rank whose rows are done joins with empty pieces).
int64_t agreed_piece_count(MPI_Comm comm, int64_t count, int64_t piece_rows) {
  const int64_t mine = (count + piece_rows - 1) / piece_rows;
  int64_t pieces = 0;
  MPI_Allreduce(&mine, &pieces, 1, MPI_INT64_T, MPI_MAX, comm);
  return pieces;
}

}  // namespace

namespace {

// Collective and agreed: creates dataset `name` with the extent `dims`.
H5Handle create_dataset(hid_t parent, const std::string& name, hid_t file_type,
                        const std::vector<hsize_t>& dims, const WriteProperties& props) {
  H5Handle dataset;
  agree_across_ranks(props.comm, [&] {
    H5Handle global_space(check_id(H5Screate_simple(int(dims.size()), dims.data(), nullptr),
                                   "H5Screate_simple"),
                          H5Sclose);
    H5Handle create = dataset_creation(props, file_type, dims);
    dataset = H5Handle(check_id(H5Dcreate2(parent, name.c_str(), file_type, global_space.get(),
                                           H5P_DEFAULT, create.get(), H5P_DEFAULT),
                                ("H5Dcreate2 " + name).c_str()),
                       H5Dclose);
  });
  return dataset;
}

// Collective and agreed: writes this rank's selection of `dataset`.
void write_selection(hid_t dataset, hid_t memory_type, const Selection& file,
                     const Selection& memory, const void* data, const WriteProperties& props) {
  agree_across_ranks(props.comm, [&] {
    H5Handle file_space = file.space();
    H5Handle memory_space = memory.space();
    if (H5Dwrite(dataset, memory_type, memory_space.get(), file_space.get(), props.transfer.get(),
                 data ? data : &no_data) < 0)
      throw std::runtime_error(fmt::format("cannot write '{}'{}: {}", object_path(dataset),
                                           write_failure_cause(dataset), hdf5_error_detail()));
  });
}

}  // namespace

void write_dataset(hid_t parent, const std::string& name, hid_t file_type, hid_t memory_type,
                   const Selection& file, const Selection& memory, const void* data,
                   const WriteProperties& props) {
  H5Handle dataset = create_dataset(parent, name, file_type, file.dims, props);
  // An empty dataset has no storage to write to, and HDF5 fails even on an empty selection.
  if (any_extent_zero(file)) return;
  write_selection(dataset.get(), memory_type, file, memory, data, props);
}

namespace {

// write_rows_in_pieces' loop: piece_data(first, n) gives rows [first, first + n) of this
// rank's rows in the memory type.
void write_pieces(hid_t parent, const std::string& name, hid_t file_type, hid_t memory_type,
                  const RankRows& rows, int64_t count, int columns,
                  const std::function<const void*(int64_t, int64_t)>& piece_data,
                  const WriteProperties& props, size_t piece_bytes) {
  const std::vector<hsize_t> dims =
      columns > 1 ? std::vector<hsize_t>{hsize_t(rows.total), hsize_t(columns)}
                  : std::vector<hsize_t>{hsize_t(rows.total)};
  H5Handle dataset = create_dataset(parent, name, file_type, dims, props);
  if (rows.total == 0) return;
  const int64_t piece_rows = rows_per_piece(memory_type, columns, piece_bytes);
  const int64_t pieces = agreed_piece_count(props.comm, count, piece_rows);
  for (int64_t piece = 0; piece < pieces; ++piece) {
    const int64_t first = std::min(count, piece * piece_rows);
    const int64_t n = std::min(piece_rows, count - first);
    const auto [file, memory] = row_block(rows.total, columns, rows.offset + first, n);
    write_selection(dataset.get(), memory_type, file, memory,
                    n > 0 ? piece_data(first, n) : nullptr, props);
  }
}

}  // namespace

void write_rows_in_pieces(hid_t parent, const std::string& name, hid_t file_type,
                          hid_t memory_type, const RankRows& rows, int64_t count, int columns,
                          const RowFiller& fill, const WriteProperties& props,
                          size_t piece_bytes) {
  const size_t row_bytes = row_bytes_of(memory_type, columns);
  const int64_t piece_rows = rows_per_piece(memory_type, columns, piece_bytes);
  std::vector<char> buffer(size_t(std::min(count, piece_rows)) * row_bytes);
  write_pieces(
      parent, name, file_type, memory_type, rows, count, columns,
      [&](int64_t first, int64_t n) {
        fill(first, n, buffer.data());
        return static_cast<const void*>(buffer.data());
      },
      props, piece_bytes);
}

void write_array_in_pieces(hid_t parent, const std::string& name, hid_t file_type,
                           hid_t memory_type, const RankRows& rows, int64_t count, int columns,
                           const void* data, const WriteProperties& props, size_t piece_bytes) {
  const size_t row_bytes = row_bytes_of(memory_type, columns);
  write_pieces(
      parent, name, file_type, memory_type, rows, count, columns,
      [&](int64_t first, int64_t) {
        return static_cast<const void*>(static_cast<const char*>(data) +
                                        size_t(first) * row_bytes);
      },
      props, piece_bytes);
}

void read_dataset(hid_t parent, const std::string& name, hid_t memory_type, const Selection& file,
                  const Selection& memory, void* data, const ReadProperties& props) {
  H5Handle dataset;
  agree_across_ranks(props.comm, [&] {
    dataset = H5Handle(check_id(H5Dopen2(parent, name.c_str(), H5P_DEFAULT),
                                ("H5Dopen2 " + name).c_str()),
                       H5Dclose);
  });
  if (any_extent_zero(file)) return;
  agree_across_ranks(props.comm, [&] {
    H5Handle file_space = file.space();
    H5Handle memory_space = memory.space();
    if (H5Dread(dataset.get(), memory_type, memory_space.get(), file_space.get(),
                props.transfer.get(), data ? data : &no_data) >= 0)
      return;
    const std::string detail = hdf5_error_detail();
    if (detail.find("Fletcher32") != std::string::npos)
      throw std::runtime_error(
          fmt::format("'{}' fails its checksum (the stored data changed "
                      "after it was written)",
                      object_path(dataset.get())));
    throw std::runtime_error(
        fmt::format("cannot read '{}': {}", object_path(dataset.get()), detail));
  });
}

void read_rows_in_pieces(hid_t parent, const std::string& name, hid_t memory_type,
                         int64_t global_rows, int columns, int64_t first, int64_t count,
                         void* data, const ReadProperties& props, size_t piece_bytes) {
  const size_t row_bytes = row_bytes_of(memory_type, columns);
  const int64_t piece_rows = rows_per_piece(memory_type, columns, piece_bytes);
  // At least one read, so that the dataset is opened (and checked) when no rank reads rows.
  const int64_t pieces = std::max<int64_t>(1, agreed_piece_count(props.comm, count, piece_rows));
  for (int64_t piece = 0; piece < pieces; ++piece) {
    const int64_t done = std::min(count, piece * piece_rows);
    const int64_t n = std::min(piece_rows, count - done);
    const auto [file, memory] = row_block(global_rows, columns, first + done, n);
    read_dataset(parent, name, memory_type, file, memory,
                 n > 0 ? static_cast<char*>(data) + size_t(done) * row_bytes : nullptr, props);
  }
}

std::vector<hsize_t> dataset_extent(hid_t parent, const std::string& name) {
  if (H5Lexists(parent, name.c_str(), H5P_DEFAULT) <= 0)
    throw std::runtime_error("no dataset '" + name + "'");
  H5Handle dataset(check_id(H5Dopen2(parent, name.c_str(), H5P_DEFAULT),
                            ("H5Dopen2 " + name).c_str()),
                   H5Dclose);
  H5Handle space(check_id(H5Dget_space(dataset.get()), "H5Dget_space"), H5Sclose);
  int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) throw std::runtime_error("dataset '" + name + "' has no simple extent");
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  check_status(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr),
               "H5Sget_simple_extent_dims");
  return dims;
}

H5Handle variable_string_type() {
  H5Handle type(check_id(H5Tcopy(H5T_C_S1), "H5Tcopy"), H5Tclose);
  check_status(H5Tset_size(type.get(), H5T_VARIABLE), "H5Tset_size");
  check_status(H5Tset_cset(type.get(), H5T_CSET_UTF8), "H5Tset_cset");
  return type;
}

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

void write_int_list_attribute(hid_t object, const char* name, const std::vector<int>& values) {
  hsize_t count = values.size();
  H5Handle space(check_id(H5Screate_simple(1, &count, nullptr), "H5Screate_simple"), H5Sclose);
  H5Handle attribute(check_id(H5Acreate2(object, name, H5T_STD_I32LE, space.get(), H5P_DEFAULT,
                                         H5P_DEFAULT),
                              "H5Acreate2"),
                     H5Aclose);
  check_status(H5Awrite(attribute.get(), H5T_NATIVE_INT, values.data()), "H5Awrite");
}

void write_array_attribute(hid_t object, const char* name, hid_t file_type, hid_t memory_type,
                           size_t count, const void* values) {
  const hsize_t extent = count;
  H5Handle space(check_id(H5Screate_simple(1, &extent, nullptr), "H5Screate_simple"), H5Sclose);
  H5Handle attribute(check_id(H5Acreate2(object, name, file_type, space.get(), H5P_DEFAULT,
                                         H5P_DEFAULT),
                              "H5Acreate2"),
                     H5Aclose);
  check_status(H5Awrite(attribute.get(), memory_type, values), "H5Awrite");
}

namespace {

H5Handle open_attribute(hid_t object, const char* name) {
  if (H5Aexists(object, name) <= 0)
    throw std::runtime_error(fmt::format("no attribute '{}'", name));
  return H5Handle(check_id(H5Aopen(object, name, H5P_DEFAULT), "H5Aopen"), H5Aclose);
}

// Number of elements of an attribute (1 for a scalar).
hssize_t attribute_size(hid_t attribute) {
  H5Handle space(check_id(H5Aget_space(attribute), "H5Aget_space"), H5Sclose);
  return H5Sget_simple_extent_npoints(space.get());
}

}  // namespace

void read_attribute(hid_t object, const char* name, hid_t memory_type, void* value) {
  H5Handle attribute = open_attribute(object, name);
  if (attribute_size(attribute.get()) != 1)
    throw std::runtime_error(fmt::format("attribute '{}' is not a single value", name));
  check_status(H5Aread(attribute.get(), memory_type, value), "H5Aread");
}

std::string read_string_attribute(hid_t object, const char* name) {
  H5Handle attribute = open_attribute(object, name);
  H5Handle stored(check_id(H5Aget_type(attribute.get()), "H5Aget_type"), H5Tclose);
  if (H5Tget_class(stored.get()) != H5T_STRING || H5Tis_variable_str(stored.get()) <= 0 ||
      attribute_size(attribute.get()) != 1)
    throw std::runtime_error(fmt::format("attribute '{}' is not a string", name));
  H5Handle type = variable_string_type();
  char* text = nullptr;
  check_status(H5Aread(attribute.get(), type.get(), &text), "H5Aread");
  std::string value = text ? text : "";
  H5free_memory(text);
  return value;
}

std::vector<int> read_int_list_attribute(hid_t object, const char* name) {
  H5Handle attribute = open_attribute(object, name);
  std::vector<int> values(size_t(attribute_size(attribute.get())));
  check_status(H5Aread(attribute.get(), H5T_NATIVE_INT, values.data()), "H5Aread");
  return values;
}

std::vector<std::string> read_string_list_attribute(hid_t object, const char* name) {
  H5Handle attribute = open_attribute(object, name);
  H5Handle stored(check_id(H5Aget_type(attribute.get()), "H5Aget_type"), H5Tclose);
  if (H5Tget_class(stored.get()) != H5T_STRING || H5Tis_variable_str(stored.get()) <= 0)
    throw std::runtime_error(fmt::format("attribute '{}' is not a list of strings", name));
  std::vector<char*> texts(size_t(attribute_size(attribute.get())), nullptr);
  H5Handle type = variable_string_type();
  check_status(H5Aread(attribute.get(), type.get(), texts.data()), "H5Aread");
  std::vector<std::string> values;
  for (char* text : texts) {
    values.emplace_back(text ? text : "");
    H5free_memory(text);
  }
  return values;
}

void read_array_attribute(hid_t object, const char* name, hid_t memory_type, size_t count,
                          void* values) {
  H5Handle attribute = open_attribute(object, name);
  if (attribute_size(attribute.get()) != hssize_t(count))
    throw std::runtime_error(fmt::format("attribute '{}' does not hold {} values", name, count));
  check_status(H5Aread(attribute.get(), memory_type, values), "H5Aread");
}

}  // namespace dunesim

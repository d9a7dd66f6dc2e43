// HDF5 plumbing shared by output frames and checkpoints: owned handles, errors that every
// rank agrees on, hyperslab selections, and collective reads and writes of global arrays.
#pragma once
#include <fmt/format.h>
#include <hdf5.h>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "decomposition/box.hpp"
#include "io/rank_agreement.hpp"

namespace dunesim {

// Owns one HDF5 identifier and closes it with the matching H5?close function.
class H5Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  H5Handle() = default;
  H5Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  H5Handle(H5Handle&& other) noexcept
      : id_(std::exchange(other.id_, H5I_INVALID_HID)), closer_(other.closer_) {}
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
std::string hdf5_error_detail();
// Throw std::runtime_error naming `what` and the HDF5 error when the call failed.
hid_t check_id(hid_t id, const char* what);
void check_status(herr_t status, const char* what);

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

// One dataspace selection: the whole extent `dims`, of which the block at `start` with
// extent `count` is selected (nothing when any count is 0).
struct Selection {
  std::vector<hsize_t> dims, start, count;

  bool empty() const;
  H5Handle space() const;
};

// Where this rank's rows go in a dataset that the ranks fill in rank order.
struct RankRows {
  int64_t offset = 0;  // this rank's first row
  int64_t total = 0;   // rows over all ranks
};
// Collective; `count` is this rank's number of rows.
RankRows rank_rows(MPI_Comm comm, int64_t count);

// Rows [offset, offset + count) of a dataset with `global_rows` rows of `columns` values each,
// held in a local buffer of exactly those rows.
std::pair<Selection, Selection> row_block(int64_t global_rows, int columns, int64_t offset,
                                          int64_t count);

// The cells `cells` of a global cells[2] x cells[1] x cells[0] array (x fastest), held in a
// local array over the box `stored` (which may include ghost layers).
std::pair<Selection, Selection> cell_block(const Box& cells, const Box& stored,
                                           const std::array<int, 3>& global_cells);

// A file shared by all ranks of `comm` through the MPI-IO driver, with collective metadata.
H5Handle create_parallel_file(MPI_Comm comm, const std::string& path);
H5Handle open_parallel_file(MPI_Comm comm, const std::string& path);

// Whether datasets carry checksums: HDF5's Fletcher32 filter on chunks of at most
// kChunkBytes, which a read verifies (checkpoints), or are stored contiguous and bare
// (frames, read by viewers).
enum class Checksums : bool { No, Fletcher32 };
// Below the 1 MiB alignment threshold (H5Pset_alignment), so that chunks and their 4-byte
// checksums pack without gaps instead of each starting on a 1 MiB boundary.
constexpr hsize_t kChunkBytes = (hsize_t(1) << 20) - (hsize_t(64) << 10);

// What every dataset write of a file shares: the ranks that write it (each write is agreed
// across them), the layout, and the property lists.
struct WriteProperties {
  MPI_Comm comm = MPI_COMM_NULL;
  Checksums checksums = Checksums::No;
  H5Handle dataset_create, transfer;
};
WriteProperties make_write_properties(MPI_Comm comm, Checksums checksums = Checksums::No);

// What every dataset read of a file shares: the ranks that read it together (each read is
// agreed across them) and a collective transfer.
struct ReadProperties {
  MPI_Comm comm = MPI_COMM_NULL;
  H5Handle transfer;
};
ReadProperties make_read_properties(MPI_Comm comm);
// A transfer property list for collective reads and writes.
H5Handle collective_transfer();

// Collective. Creates dataset `name` under `parent` with the file selection's extent and
// writes this rank's block in one collective call. Creating and writing are each agreed
// across the ranks: a failure on any rank (a full disk) throws AgreedError on all of them.
void write_dataset(hid_t parent, const std::string& name, hid_t file_type, hid_t memory_type,
                   const Selection& file, const Selection& memory, const void* data,
                   const WriteProperties& props);
// Fills rows [first, first + n) of this rank's rows into `buffer`, in the memory type.
using RowFiller = std::function<void(int64_t first, int64_t n, void* buffer)>;
// Bytes of the buffer that write_rows_in_pieces converts rows into, per collective write,
// unless told otherwise.
constexpr size_t kPieceBytes = size_t(32) << 20;
// Collective. Like write_dataset for `rows.total` rows of `columns` values that the ranks
// fill in rank order (this rank's `count` rows from `rows.offset`), but the rows are made
// by `fill` a piece of at most `piece_bytes` (at least one row) at a time: an array
// converted or interleaved for the file then needs that buffer, not a whole copy of itself.
void write_rows_in_pieces(hid_t parent, const std::string& name, hid_t file_type,
                          hid_t memory_type, const RankRows& rows, int64_t count, int columns,
                          const RowFiller& fill, const WriteProperties& props,
                          size_t piece_bytes = kPieceBytes);
// The same for rows that lie in `data` as the file holds them (this rank's `count` rows of
// `columns` values of the memory type), written from there without a buffer: a
// checksummed dataset's collective write holds a copy of every chunk it writes, so a
// large array written in one call would briefly be there twice.
void write_array_in_pieces(hid_t parent, const std::string& name, hid_t file_type,
                           hid_t memory_type, const RankRows& rows, int64_t count, int columns,
                           const void* data, const WriteProperties& props,
                           size_t piece_bytes = kPieceBytes);
// Collective. Reads this rank's block of dataset `name` in one collective call, agreed like
// a write; a block that fails its checksum is reported as "... fails its checksum".
void read_dataset(hid_t parent, const std::string& name, hid_t memory_type, const Selection& file,
                  const Selection& memory, void* data, const ReadProperties& props);
// Collective. Reads rows [first, first + count) of dataset `name` (`global_rows` rows of
// `columns` values) into `data`, at most `piece_bytes` (at least one row) per collective
// read, as read_dataset reads each: a checksummed dataset's read, like its write
// (write_array_in_pieces), holds a copy of every chunk it transfers.
void read_rows_in_pieces(hid_t parent, const std::string& name, hid_t memory_type,
                         int64_t global_rows, int columns, int64_t first, int64_t count,
                         void* data, const ReadProperties& props,
                         size_t piece_bytes = kPieceBytes);
// The extent of dataset `name`; throws naming it when it does not exist.
std::vector<hsize_t> dataset_extent(hid_t parent, const std::string& name);

H5Handle variable_string_type();
// Attributes are metadata: every rank calls these with the same values.
void write_attribute(hid_t object, const char* name, hid_t file_type, hid_t memory_type,
                     const void* value);
void write_string_attribute(hid_t object, const char* name, const std::string& value);
void write_string_list_attribute(hid_t object, const char* name,
                                 const std::vector<std::string>& values);
void write_int_list_attribute(hid_t object, const char* name, const std::vector<int>& values);
// A one-dimensional attribute of `count` values.
void write_array_attribute(hid_t object, const char* name, hid_t file_type, hid_t memory_type,
                           size_t count, const void* values);
// Readers of the above; they throw naming the attribute when it is missing or of another shape.
void read_attribute(hid_t object, const char* name, hid_t memory_type, void* value);
std::string read_string_attribute(hid_t object, const char* name);
std::vector<int> read_int_list_attribute(hid_t object, const char* name);
std::vector<std::string> read_string_list_attribute(hid_t object, const char* name);
// Exactly `count` values, or it throws naming the attribute.
void read_array_attribute(hid_t object, const char* name, hid_t memory_type, size_t count,
                          void* values);

// The HDF5 types of a C++ element type: little-endian in the file, native in memory.
template <class T>
struct Hdf5Type {
  static hid_t file() {
    if constexpr (std::is_same_v<T, double>)
      return H5T_IEEE_F64LE;
    else if constexpr (std::is_same_v<T, float>)
      return H5T_IEEE_F32LE;
    else if constexpr (std::is_same_v<T, int64_t>)
      return H5T_STD_I64LE;
    else if constexpr (std::is_same_v<T, int32_t>)
      return H5T_STD_I32LE;
    else if constexpr (std::is_same_v<T, uint64_t>)
      return H5T_STD_U64LE;
    else if constexpr (std::is_same_v<T, uint32_t>)
      return H5T_STD_U32LE;
    else if constexpr (std::is_same_v<T, uint16_t>)
      return H5T_STD_U16LE;
    else if constexpr (std::is_same_v<T, int16_t>)
      return H5T_STD_I16LE;
    else if constexpr (std::is_same_v<T, uint8_t>)
      return H5T_STD_U8LE;
    else if constexpr (std::is_same_v<T, int8_t>)
      return H5T_STD_I8LE;
    else
      static_assert(sizeof(T) == 0, "add the HDF5 types of this element type");
  }
  static hid_t memory() {
    if constexpr (std::is_same_v<T, double>)
      return H5T_NATIVE_DOUBLE;
    else if constexpr (std::is_same_v<T, float>)
      return H5T_NATIVE_FLOAT;
    else if constexpr (std::is_same_v<T, int64_t>)
      return H5T_NATIVE_INT64;
    else if constexpr (std::is_same_v<T, int32_t>)
      return H5T_NATIVE_INT32;
    else if constexpr (std::is_same_v<T, uint64_t>)
      return H5T_NATIVE_UINT64;
    else if constexpr (std::is_same_v<T, uint32_t>)
      return H5T_NATIVE_UINT32;
    else if constexpr (std::is_same_v<T, uint16_t>)
      return H5T_NATIVE_UINT16;
    else if constexpr (std::is_same_v<T, int16_t>)
      return H5T_NATIVE_INT16;
    else if constexpr (std::is_same_v<T, uint8_t>)
      return H5T_NATIVE_UINT8;
    else if constexpr (std::is_same_v<T, int8_t>)
      return H5T_NATIVE_INT8;
    else
      static_assert(sizeof(T) == 0, "add the HDF5 types of this element type");
  }
};

}  // namespace dunesim

// The /run group of every frame and checkpoint: which build wrote the file, on how many
// ranks, from which case, and the domain, grid and materials a reader needs to make sense of
// the particles without the case file.
#pragma once
#include <hdf5.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/case_config.hpp"

namespace dunesim {

struct RunRecord {
  std::string dunesim_version, source_revision;  // of the build that wrote the file
  int64_t ranks = 0;                             // MPI ranks that wrote it
  std::string case_file;                         // the path as given
  std::string case_text;                         // the case file's whole text
  double cell_size = 0;                          // m
  std::array<int64_t, 3> cells{0, 0, 0};         // along x, y, z
  std::array<double, 3> domain_lower{0, 0, 0}, domain_upper{0, 0, 0};  // m
  std::array<double, 3> gravity{0, 0, 0};                              // m/s^2
  // Index i names the value i of /particles/material; kinds are "water" or "sand".
  std::vector<std::string> material_names, material_kinds;
};

// The record of a run of `config` on `ranks` ranks by this build.
RunRecord run_record_of(const CaseConfig& config, int64_t ranks);

// Collective (HDF5 metadata): every rank calls it with the same record. Creates /run under
// `root` with one attribute per field of the record.
void write_run_group(hid_t root, const RunRecord& run);

// Bytes /run adds to a file, at most (for the room a file asks for before it is written).
uint64_t run_group_bytes(const RunRecord& run);

// The /run group of a file, or nothing for files written before it existed. Throws naming
// the attribute when the group is there but an attribute is missing or of another shape.
std::optional<RunRecord> read_run_group(hid_t file);

}  // namespace dunesim

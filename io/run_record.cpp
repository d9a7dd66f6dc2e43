#include "io/run_record.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

#include "io/build_info.hpp"
#include "io/parallel_hdf5.hpp"

namespace dunesim {
namespace {

constexpr const char* kGroup = "run";

template <class T>
std::array<T, 3> read_triple(hid_t group, const char* name, hid_t memory_type) {
  std::array<T, 3> values{};
  read_array_attribute(group, name, memory_type, values.size(), values.data());
  return values;
}

}  // namespace

RunRecord run_record_of(const CaseConfig& config, int64_t ranks) {
  RunRecord run;
  run.dunesim_version = dunesim_version();
  run.source_revision = source_revision();
  run.ranks = ranks;
  run.case_file = config.file;
  run.case_text = config.text;
  run.cell_size = config.cell_size;
  for (int a = 0; a < 3; ++a) {
    run.cells[size_t(a)] = config.cells[size_t(a)];
    run.domain_upper[size_t(a)] = config.domain_size[a];  // the domain is [0, size]
    run.gravity[size_t(a)] = config.gravity[a];
  }
  for (const MaterialSpec& m : config.materials) {
    run.material_names.push_back(m.name);
    run.material_kinds.push_back(m.kind == MaterialKind::Sand ? "sand" : "water");
  }
  return run;
}

void write_run_group(hid_t root, const RunRecord& run) {
  H5Handle group(check_id(H5Gcreate2(root, kGroup, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                          "H5Gcreate2 run"),
                 H5Gclose);
  const hid_t g = group.get();
  write_string_attribute(g, "dunesim_version", run.dunesim_version);
  write_string_attribute(g, "source_revision", run.source_revision);
  write_attribute(g, "ranks", H5T_STD_I64LE, H5T_NATIVE_INT64, &run.ranks);
  write_string_attribute(g, "case_file", run.case_file);
  // A variable-length string lives in the global heap, not in the object header, so the
  // object header's 64 KiB limit on attributes does not bound the case's text.
  write_string_attribute(g, "case_text", run.case_text);
  write_attribute(g, "cell_size", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &run.cell_size);
  write_array_attribute(g, "cells", H5T_STD_I64LE, H5T_NATIVE_INT64, 3, run.cells.data());
  write_array_attribute(g, "domain_lower", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3,
                        run.domain_lower.data());
  write_array_attribute(g, "domain_upper", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3,
                        run.domain_upper.data());
  write_array_attribute(g, "gravity", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, run.gravity.data());
  write_string_list_attribute(g, "material_names", run.material_names);
  write_string_list_attribute(g, "material_kinds", run.material_kinds);
}

uint64_t run_group_bytes(const RunRecord& run) {
  // The group's object header and its attributes' messages, then the strings in the global
  // heap (each with its 16-byte heap object header, rounded up to 8 bytes).
  uint64_t bytes = 4096;
  auto heap = [&](const std::string& text) { bytes += 16 + (text.size() + 1 + 7) / 8 * 8; };
  for (const std::string* text :
       {&run.dunesim_version, &run.source_revision, &run.case_file, &run.case_text})
    heap(*text);
  for (const auto* list : {&run.material_names, &run.material_kinds})
    for (const std::string& text : *list) heap(text);
  return bytes;
}

std::optional<RunRecord> read_run_group(hid_t file) {
  if (H5Lexists(file, kGroup, H5P_DEFAULT) <= 0) return std::nullopt;
  H5Handle group(check_id(H5Gopen2(file, kGroup, H5P_DEFAULT), "H5Gopen2 run"), H5Gclose);
  const hid_t g = group.get();
  RunRecord run;
  try {
    run.dunesim_version = read_string_attribute(g, "dunesim_version");
    run.source_revision = read_string_attribute(g, "source_revision");
    read_attribute(g, "ranks", H5T_NATIVE_INT64, &run.ranks);
    run.case_file = read_string_attribute(g, "case_file");
    run.case_text = read_string_attribute(g, "case_text");
    read_attribute(g, "cell_size", H5T_NATIVE_DOUBLE, &run.cell_size);
    run.cells = read_triple<int64_t>(g, "cells", H5T_NATIVE_INT64);
    run.domain_lower = read_triple<double>(g, "domain_lower", H5T_NATIVE_DOUBLE);
    run.domain_upper = read_triple<double>(g, "domain_upper", H5T_NATIVE_DOUBLE);
    run.gravity = read_triple<double>(g, "gravity", H5T_NATIVE_DOUBLE);
    // A list without entries is not written (an attribute cannot be empty).
    for (auto [name, list] : {std::pair{"material_names", &run.material_names},
                              std::pair{"material_kinds", &run.material_kinds}})
      if (H5Aexists(g, name) > 0) *list = read_string_list_attribute(g, name);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("/run: {}", e.what()));
  }
  return run;
}

}  // namespace dunesim

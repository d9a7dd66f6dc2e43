#include "io/file_summary.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <filesystem>
#include <vector>

#include "io/parallel_hdf5.hpp"
#include "io/run_record.hpp"

namespace dunesim {
namespace {

// "float64", "int64", "uint8", "string", ...
std::string describe_type(hid_t type) {
  const size_t bits = 8 * H5Tget_size(type);
  switch (H5Tget_class(type)) {
    case H5T_INTEGER:
      return fmt::format("{}int{}", H5Tget_sign(type) == H5T_SGN_NONE ? "u" : "", bits);
    case H5T_FLOAT: return fmt::format("float{}", bits);
    case H5T_STRING: return "string";
    default: return "other";
  }
}

struct DatasetInfo {
  std::string path, type;
  std::vector<hsize_t> dims;
};

std::vector<DatasetInfo> list_datasets(hid_t file) {
  std::vector<DatasetInfo> datasets;
  auto visit = [](hid_t root, const char* name, const H5L_info_t*, void* data) -> herr_t {
    hid_t object = H5Oopen(root, name, H5P_DEFAULT);
    if (object < 0) return -1;
    if (H5Iget_type(object) == H5I_DATASET) {
      DatasetInfo info{std::string("/") + name, "", {}};
      hid_t type = H5Dget_type(object);
      hid_t space = H5Dget_space(object);
      info.type = describe_type(type);
      info.dims.resize(size_t(std::max(H5Sget_simple_extent_ndims(space), 0)));
      H5Sget_simple_extent_dims(space, info.dims.data(), nullptr);
      H5Sclose(space);
      H5Tclose(type);
      static_cast<std::vector<DatasetInfo>*>(data)->push_back(std::move(info));
    }
    H5Oclose(object);
    return 0;
  };
  check_status(H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, visit, &datasets), "H5Lvisit");
  return datasets;
}

std::string describe_dims(const std::vector<hsize_t>& dims) {
  if (dims.empty()) return "scalar";
  std::string text;
  for (hsize_t d : dims) text += (text.empty() ? "" : " x ") + std::to_string(d);
  return text;
}

int64_t int_attribute(hid_t object, const char* name) {
  int64_t value = 0;
  read_attribute(object, name, H5T_NATIVE_INT64, &value);
  return value;
}

double double_attribute(hid_t object, const char* name) {
  double value = 0;
  read_attribute(object, name, H5T_NATIVE_DOUBLE, &value);
  return value;
}

// Lines of the case text that the summary shows; longer texts end with a note of how many
// more there are.
constexpr size_t kCaseTextLines = 20;

std::string describe_case_text(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  const size_t shown = std::min(lines.size(), kCaseTextLines);
  std::string out =
      fmt::format("  case text: {} lines, {} bytes; {}\n", lines.size(), text.size(),
                  shown == lines.size() ? "all of them:" : fmt::format("the first {}:", shown));
  for (size_t n = 0; n < shown; ++n) out += "    | " + lines[n] + "\n";
  if (shown < lines.size()) out += fmt::format("    ... {} more lines\n", lines.size() - shown);
  return out;
}

std::string describe_triple(const std::array<double, 3>& v) {
  return fmt::format("{:.9g} {:.9g} {:.9g}", v[0], v[1], v[2]);
}

// The /run group, or a line saying the file predates it.
std::string describe_run(hid_t file) {
  const std::optional<RunRecord> run = read_run_group(file);
  if (!run) return "run: not recorded (written before /run existed)\n";
  std::string text = "run:\n";
  text += fmt::format("  dunesim version: {}\n  source revision: {}\n  ranks: {}\n",
                      run->dunesim_version, run->source_revision, run->ranks);
  text += fmt::format("  case file: {}\n", run->case_file);
  text += fmt::format("  cell size: {:.9g} m\n  cells: {} x {} x {}\n", run->cell_size,
                      run->cells[0], run->cells[1], run->cells[2]);
  text += fmt::format("  domain lower: {} m\n  domain upper: {} m\n  gravity: {} m/s^2\n",
                      describe_triple(run->domain_lower), describe_triple(run->domain_upper),
                      describe_triple(run->gravity));
  text += "  materials:";
  for (size_t m = 0; m < run->material_names.size(); ++m)
    text += fmt::format(" {}={} ({})", m, run->material_names[m],
                        m < run->material_kinds.size() ? run->material_kinds[m] : "?");
  text += "\n" + describe_case_text(run->case_text);
  return text;
}

std::string summarize(hid_t file) {
  std::string text;
  const double time = double_attribute(file, "time");
  const int64_t step = int_attribute(file, "step");
  const int64_t particles = int_attribute(file, "particle_count");
  const std::string case_name = read_string_attribute(file, "case_name");
  if (H5Aexists(file, "format") > 0 &&
      read_string_attribute(file, "format") == "dunesim checkpoint") {
    const int64_t ranks = int_attribute(file, "ranks");
    H5Handle layout(check_id(H5Gopen2(file, "layout", H5P_DEFAULT), "H5Gopen2 layout"), H5Gclose);
    const std::vector<int> cells = read_int_list_attribute(layout.get(), "cells");
    const std::vector<int> dims = read_int_list_attribute(layout.get(), "dims");
    text += fmt::format("kind: checkpoint (format version {})\n",
                        int_attribute(file, "format_version"));
    text += fmt::format("case: {} (read from {})\n", case_name,
                        read_string_attribute(file, "case_file"));
    text += fmt::format("time: {:.9g} s\nstep: {}\nlast dt: {:.6g} s\nframes written: {}\n", time,
                        step, double_attribute(file, "last_dt"),
                        int_attribute(file, "frames_written"));
    text += fmt::format("particles: {}\n", particles);
    text +=
        fmt::format("ranks: {} (layout {} x {} x {}), grid {} x {} x {} cells\n", ranks,
                    dims.at(0), dims.at(1), dims.at(2), cells.at(0), cells.at(1), cells.at(2));
  } else if (H5Aexists(file, "frame") > 0) {
    text += fmt::format("kind: frame {}\ncase: {}\n", int_attribute(file, "frame"), case_name);
    text += fmt::format("time: {:.9g} s\nstep: {}\nparticles: {}\n", time, step, particles);
  } else {
    throw std::runtime_error("neither a dunesim frame nor a checkpoint");
  }
  text += describe_run(file);
  text += "datasets:\n";
  for (const DatasetInfo& d : list_datasets(file))
    text += fmt::format("  {} {} [{}]\n", d.path, d.type, describe_dims(d.dims));
  return text;
}

// Says what `path` is when it is not a file HDF5 could open (HDF5's own error would not).
void require_regular_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (status.type() == fs::file_type::not_found) throw std::runtime_error("no such file");
  if (error) throw std::runtime_error(error.message());
  if (fs::is_directory(status))
    throw std::runtime_error("is a directory; give a frame or a checkpoint (.h5)");
  if (!fs::is_regular_file(status))
    throw std::runtime_error("is not a regular file; give a frame or a checkpoint (.h5)");
}

}  // namespace

std::string summarize_output_file(const std::string& path) {
  QuietHdf5Errors quiet;
  try {
    require_regular_file(path);
    H5Handle file(check_id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "H5Fopen"),
                  H5Fclose);
    return path + "\n" + summarize(file.get());
  } catch (const std::exception& e) { throw std::runtime_error(path + ": " + e.what()); }
}

}  // namespace dunesim

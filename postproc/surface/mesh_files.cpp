#include "postproc/surface/mesh_files.hpp"

#include <vtkCellArray.h>
#include <fmt/format.h>
#include <vtkDataArray.h>
#include <vtkErrorCode.h>
#include <vtkPointData.h>
#include <vtkSmartPointer.h>
#include <vtkXMLPolyDataWriter.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "io/xml_escape.hpp"

namespace dunesim {

namespace fs = std::filesystem;

// Throws naming `path` if something that is not a regular file is there (a directory, a
// socket): writing would fail, or would not leave a mesh file under that name.
void refuse_non_regular(const std::string& path, const char* what) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status) || fs::is_regular_file(status)) return;
  throw std::runtime_error(fmt::format("{}: cannot write {}: {} is there", path, what,
                                       fs::is_directory(status) ? "a directory" : "not a file"));
}

// Throws naming `path` unless a regular, non-empty file is there now.
void require_written(const std::string& path, const char* what) {
  std::error_code error;
  if (!fs::is_regular_file(path, error) || fs::file_size(path, error) == 0 || error)
    throw std::runtime_error(fmt::format("{}: could not write {}: no file was left", path, what));
}

void write_vtp(vtkPolyData* mesh, const std::string& path) {
  refuse_non_regular(path, "the surface");
  auto writer = vtkSmartPointer<vtkXMLPolyDataWriter>::New();
  writer->SetFileName(path.c_str());
  writer->SetInputData(mesh);
  writer->SetDataModeToAppended();
  // Write() returns 1 even when the file could not be opened (VTK 9.1): the error code, and
  // the file, tell.
  const int written = writer->Write();
  const unsigned long code = writer->GetErrorCode();
  if (written != 1 || code != vtkErrorCode::NoError)
    throw std::runtime_error(fmt::format("{}: could not write the surface ({})", path,
                                         vtkErrorCode::GetStringFromErrorCode(code)));
  require_written(path, "the surface");
}

namespace {

template <class T>
void put(std::ofstream& out, T value) {
  out.write(reinterpret_cast<const char*>(&value), sizeof value);  // x86: little-endian
}

void write_ply_vertices(vtkPolyData* mesh, std::ofstream& out) {
  vtkDataArray* normals = mesh->GetPointData()->GetNormals();
  for (vtkIdType p = 0; p < mesh->GetNumberOfPoints(); ++p) {
    double x[3], n[3] = {0, 0, 0};
    mesh->GetPoint(p, x);
    if (normals) normals->GetTuple(p, n);
    for (double c : x) put(out, float(c));
    for (double c : n) put(out, float(c));
  }
}

void write_ply_faces(vtkPolyData* mesh, std::ofstream& out) {
  vtkCellArray* polys = mesh->GetPolys();
  polys->InitTraversal();
  vtkIdType count;
  const vtkIdType* ids;
  while (polys->GetNextCell(count, ids)) {
    put(out, uint8_t(count));
    for (vtkIdType c = 0; c < count; ++c) put(out, int32_t(ids[c]));
  }
}

}  // namespace

void write_ply(vtkPolyData* mesh, const std::string& path) {
  if (mesh->GetNumberOfPoints() > INT32_MAX)
    throw std::runtime_error(path + ": too many vertices for PLY's 32-bit indices");
  refuse_non_regular(path, "the surface");
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error(path + ": could not open it to write the surface");
  out << "ply\nformat binary_little_endian 1.0\ncomment dunesim_surface\n"
      << "element vertex " << mesh->GetNumberOfPoints() << "\n"
      << "property float x\nproperty float y\nproperty float z\n"
      << "property float nx\nproperty float ny\nproperty float nz\n"
      << "element face " << mesh->GetNumberOfPolys() << "\n"
      << "property list uchar int vertex_indices\nend_header\n";
  write_ply_vertices(mesh, out);
  write_ply_faces(mesh, out);
  out.close();
  if (!out) throw std::runtime_error(path + ": could not write the surface");
  require_written(path, "the surface");
}

void write_pvtp(const std::vector<std::string>& piece_files, const std::string& path) {
  refuse_non_regular(path, "the surface's index");
  std::ofstream out(path);
  if (!out) throw std::runtime_error(path + ": could not open it to write the surface's index");
  out << "<?xml version=\"1.0\"?>\n"
      << "<VTKFile type=\"PPolyData\" version=\"1.0\" byte_order=\"LittleEndian\" "
         "header_type=\"UInt64\">\n"
      << "  <PPolyData GhostLevel=\"0\">\n"
      << "    <PPointData Normals=\"Normals\">\n"
      << "      <PDataArray type=\"Float64\" Name=\"Normals\" NumberOfComponents=\"3\"/>\n"
      << "    </PPointData>\n"
      << "    <PPoints>\n"
      << "      <PDataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\"/>\n"
      << "    </PPoints>\n";
  for (const std::string& piece : piece_files)
    out << "    <Piece Source=\"" << xml_escape(piece) << "\"/>\n";
  out << "  </PPolyData>\n</VTKFile>\n";
  out.close();
  if (!out) throw std::runtime_error(path + ": could not write the surface's index");
  require_written(path, "the surface's index");
}

}  // namespace dunesim

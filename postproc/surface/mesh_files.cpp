#include "postproc/surface/mesh_files.hpp"

#include <vtkCellArray.h>
#include <vtkDataArray.h>
#include <vtkPointData.h>
#include <vtkSmartPointer.h>
#include <vtkXMLPolyDataWriter.h>

#include <array>
#include <cstdint>
#include <fstream>
#include <stdexcept>

#include "io/xml_escape.hpp"

namespace dunesim {

void write_vtp(vtkPolyData* mesh, const std::string& path) {
  auto writer = vtkSmartPointer<vtkXMLPolyDataWriter>::New();
  writer->SetFileName(path.c_str());
  writer->SetInputData(mesh);
  writer->SetDataModeToAppended();
  if (writer->Write() != 1) throw std::runtime_error(path + ": could not write the surface");
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
  std::ofstream out(path, std::ios::binary);
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
}

void write_pvtp(const std::vector<std::string>& piece_files, const std::string& path) {
  std::ofstream out(path);
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
}

}  // namespace dunesim

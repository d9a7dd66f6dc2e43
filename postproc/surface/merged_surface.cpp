#include "postproc/surface/merged_surface.hpp"

#include <vtkCellArray.h>
#include <vtkDoubleArray.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkStaticCleanPolyData.h>

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "postproc/surface/rank_gather.hpp"

namespace dunesim {

namespace {

// A piece as flat arrays: per vertex x, y, z, nx, ny, nz and, with saturation, s (`width`
// doubles); per triangle its vertex ids.
struct FlatPiece {
  std::vector<double> vertices;
  std::vector<int64_t> triangles;
};

int vertex_width(bool with_saturation) { return with_saturation ? 7 : 6; }

FlatPiece flatten(vtkPolyData* piece, bool with_saturation) {
  FlatPiece flat;
  vtkDataArray* normals = piece->GetPointData()->GetNormals();
  vtkDataArray* saturation = piece->GetPointData()->GetArray("saturation");
  for (vtkIdType p = 0; p < piece->GetNumberOfPoints(); ++p) {
    double x[3], n[3] = {0, 0, 0};
    piece->GetPoint(p, x);
    if (normals) normals->GetTuple(p, n);
    flat.vertices.insert(flat.vertices.end(), {x[0], x[1], x[2], n[0], n[1], n[2]});
    if (with_saturation) flat.vertices.push_back(saturation ? saturation->GetTuple1(p) : 0.0);
  }
  vtkCellArray* polys = piece->GetPolys();
  polys->InitTraversal();
  vtkIdType count;
  const vtkIdType* ids;
  while (polys->GetNextCell(count, ids))
    for (vtkIdType c = 0; c < count; ++c) flat.triangles.push_back(int64_t(ids[c]));
  return flat;
}

vtkSmartPointer<vtkPolyData> unflatten(const std::vector<double>& vertices,
                                       const std::vector<int64_t>& triangles,
                                       const std::vector<int>& triangle_counts,
                                       const std::vector<int>& vertex_counts,
                                       bool with_saturation) {
  const size_t width = size_t(vertex_width(with_saturation));
  auto points = vtkSmartPointer<vtkPoints>::New();
  points->SetDataTypeToDouble();
  auto normals = vtkSmartPointer<vtkDoubleArray>::New();
  normals->SetName("Normals");
  normals->SetNumberOfComponents(3);
  auto saturation = vtkSmartPointer<vtkDoubleArray>::New();
  saturation->SetName("saturation");
  for (size_t v = 0; v < vertices.size() / width; ++v) {
    points->InsertNextPoint(&vertices[width * v]);
    normals->InsertNextTuple(&vertices[width * v + 3]);
    if (with_saturation) saturation->InsertNextValue(vertices[width * v + 6]);
  }
  auto polys = vtkSmartPointer<vtkCellArray>::New();
  size_t next = 0;
  vtkIdType first_vertex = 0;
  for (size_t r = 0; r < triangle_counts.size(); ++r) {
    for (int t = 0; t < triangle_counts[r] / 3; ++t, next += 3) {
      const vtkIdType ids[3] = {first_vertex + triangles[next],
                                first_vertex + triangles[next + 1],
                                first_vertex + triangles[next + 2]};
      polys->InsertNextCell(3, ids);
    }
    first_vertex += vertex_counts[r] / int(width);
  }
  auto mesh = vtkSmartPointer<vtkPolyData>::New();
  mesh->SetPoints(points);
  mesh->SetPolys(polys);
  mesh->GetPointData()->SetNormals(normals);
  if (with_saturation) mesh->GetPointData()->AddArray(saturation);
  return mesh;
}

}  // namespace

vtkSmartPointer<vtkPolyData> gather_and_weld(MPI_Comm comm, vtkPolyData* piece,
                                             bool with_saturation) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const FlatPiece flat = flatten(piece, with_saturation);
  std::vector<int> vertex_counts, triangle_counts;
  const std::vector<double> vertices =
      gather_on_rank_0(comm, flat.vertices, MPI_DOUBLE, "the surface", vertex_counts);
  const std::vector<int64_t> triangles =
      gather_on_rank_0(comm, flat.triangles, MPI_INT64_T, "the surface", triangle_counts);
  if (rank != 0) return nullptr;
  auto weld = vtkSmartPointer<vtkStaticCleanPolyData>::New();
  weld->SetInputData(
      unflatten(vertices, triangles, triangle_counts, vertex_counts, with_saturation));
  weld->ToleranceIsAbsoluteOn();
  weld->SetAbsoluteTolerance(0.0);
  weld->Update();
  auto merged = vtkSmartPointer<vtkPolyData>::New();
  merged->ShallowCopy(weld->GetOutput());
  return merged;
}

}  // namespace dunesim

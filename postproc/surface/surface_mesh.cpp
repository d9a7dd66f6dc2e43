#include "postproc/surface/surface_mesh.hpp"

#include <vtkCellArray.h>
#include <vtkDoubleArray.h>
#include <vtkFlyingEdges3D.h>
#include <vtkImageData.h>
#include <vtkPointData.h>
#include <vtkPoints.h>

#include <cmath>

namespace dunesim {

namespace {

// phi's gradient at sample `at`: central differences, one-sided at the field's faces.
Vec3 phi_gradient(const SampledField& field, const std::array<int, 3>& at) {
  Vec3 gradient{0, 0, 0};
  for (int axis = 0; axis < 3; ++axis) {
    std::array<int, 3> below = at, above = at;
    if (below[axis] > 0) --below[axis];
    if (above[axis] + 1 < field.samples[axis]) ++above[axis];
    const int steps = above[axis] - below[axis];
    if (steps == 0) continue;
    gradient[axis] = (field.phi[field.index(above[0], above[1], above[2])] -
                      field.phi[field.index(below[0], below[1], below[2])]) /
                     (steps * field.spacing);
  }
  return gradient;
}

vtkSmartPointer<vtkDoubleArray> point_array(const char* name, int components, vtkIdType count) {
  auto array = vtkSmartPointer<vtkDoubleArray>::New();
  array->SetName(name);
  array->SetNumberOfComponents(components);
  array->SetNumberOfTuples(count);
  return array;
}

// The samples `range` as an image whose point arrays flying edges contours (minus_phi) and
// interpolates along the cut edges (position, phi_gradient).
vtkSmartPointer<vtkImageData> contour_input(const SampledField& field, const SampleRange& range) {
  std::array<int, 3> dims;
  for (int a = 0; a < 3; ++a) dims[a] = range.hi[a] - range.lo[a] + 1;
  const vtkIdType count = vtkIdType(dims[0]) * dims[1] * dims[2];
  // Flying edges points its normals down the scalar's gradient: contouring -phi orients
  // the triangles out of the body, where phi grows.
  auto minus_phi = point_array("minus_phi", 1, count);
  auto position = point_array("position", 3, count);
  auto gradient = point_array("phi_gradient", 3, count);
  vtkIdType n = 0;
  for (int k = range.lo[2]; k <= range.hi[2]; ++k)
    for (int j = range.lo[1]; j <= range.hi[1]; ++j)
      for (int i = range.lo[0]; i <= range.hi[0]; ++i, ++n) {
        minus_phi->SetValue(n, -field.phi[field.index(i, j, k)]);
        position->SetTypedTuple(n, field.position(i, j, k).data());
        gradient->SetTypedTuple(n, phi_gradient(field, {i, j, k}).data());
      }
  auto image = vtkSmartPointer<vtkImageData>::New();
  image->SetDimensions(dims.data());
  const Vec3 corner = field.position(range.lo[0], range.lo[1], range.lo[2]);
  image->SetOrigin(corner.data());
  image->SetSpacing(field.spacing, field.spacing, field.spacing);
  image->GetPointData()->SetScalars(minus_phi);
  image->GetPointData()->AddArray(position);
  image->GetPointData()->AddArray(gradient);
  return image;
}

// Replaces the contour's single-precision points by the interpolated double positions and
// turns the interpolated gradients into unit normals.
void finish_vertices(vtkPolyData* mesh) {
  vtkPointData* data = mesh->GetPointData();
  vtkSmartPointer<vtkDataArray> position = data->GetArray("position");
  vtkSmartPointer<vtkDataArray> gradient = data->GetArray("phi_gradient");
  if (!position || !gradient) {
    // No surface in the block: empty arrays all the same, so that every piece of a
    // distributed surface has the same arrays of the same types.
    position = point_array("position", 3, 0);
    gradient = point_array("phi_gradient", 3, 0);
    data->AddArray(gradient);
  }
  auto points = vtkSmartPointer<vtkPoints>::New();
  points->SetData(position);
  mesh->SetPoints(points);
  for (vtkIdType p = 0; p < gradient->GetNumberOfTuples(); ++p) {
    double g[3];
    gradient->GetTuple(p, g);
    const double length = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    if (length > 0)
      for (double& c : g) c /= length;
    gradient->SetTuple(p, g);
  }
  gradient->SetName("Normals");
  data->SetNormals(gradient);
  data->RemoveArray("position");
}

}  // namespace

vtkSmartPointer<vtkPolyData> zero_level_mesh(const SampledField& field,
                                             const SampleRange& contoured) {
  auto contour = vtkSmartPointer<vtkFlyingEdges3D>::New();
  contour->SetInputData(contour_input(field, contoured));
  contour->SetValue(0, 0.0);
  contour->ComputeNormalsOff();
  contour->ComputeGradientsOff();
  contour->ComputeScalarsOff();
  contour->InterpolateAttributesOn();
  contour->Update();
  auto mesh = vtkSmartPointer<vtkPolyData>::New();
  mesh->ShallowCopy(contour->GetOutput());
  finish_vertices(mesh);
  return mesh;
}

vtkSmartPointer<vtkPolyData> empty_surface_mesh() {
  auto mesh = vtkSmartPointer<vtkPolyData>::New();
  mesh->SetPolys(vtkSmartPointer<vtkCellArray>::New());
  finish_vertices(mesh);
  return mesh;
}

vtkSmartPointer<vtkPolyData> zero_level_mesh(const SampledField& field) {
  SampleRange whole;
  for (int a = 0; a < 3; ++a) whole.hi[a] = field.samples[a] - 1;
  return zero_level_mesh(field, whole);
}

}  // namespace dunesim

#include "postproc/surface/surface_mesh.hpp"

#include <vtkDoubleArray.h>
#include <vtkFlyingEdges3D.h>
#include <vtkImageData.h>
#include <vtkPLYWriter.h>
#include <vtkPointData.h>
#include <vtkXMLPolyDataWriter.h>

#include <cmath>
#include <stdexcept>

namespace dunesim {

SampledField sample_surface(const ParticleSurface& surface, const Vec3& lo, const Vec3& hi,
                            double spacing) {
  SampledField field;
  field.origin = lo;
  field.spacing = spacing;
  for (int a = 0; a < 3; ++a) field.samples[a] = int(std::ceil((hi[a] - lo[a]) / spacing)) + 1;
  const auto [nx, ny, nz] = field.samples;
  field.phi.resize(size_t(nx) * ny * nz);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        field.phi[(size_t(k) * ny + j) * nx + i] =
            surface.phi({lo[0] + i * spacing, lo[1] + j * spacing, lo[2] + k * spacing});
  return field;
}

vtkSmartPointer<vtkPolyData> zero_level_mesh(const SampledField& field) {
  auto image = vtkSmartPointer<vtkImageData>::New();
  image->SetDimensions(field.samples[0], field.samples[1], field.samples[2]);
  image->SetOrigin(field.origin[0], field.origin[1], field.origin[2]);
  image->SetSpacing(field.spacing, field.spacing, field.spacing);
  // Flying edges points its normals down the scalar's gradient: contouring -phi makes them
  // point out of the body, where phi grows.
  auto values = vtkSmartPointer<vtkDoubleArray>::New();
  values->SetName("minus_phi");
  values->SetNumberOfTuples(vtkIdType(field.phi.size()));
  for (size_t n = 0; n < field.phi.size(); ++n) values->SetValue(vtkIdType(n), -field.phi[n]);
  image->GetPointData()->SetScalars(values);

  auto contour = vtkSmartPointer<vtkFlyingEdges3D>::New();
  contour->SetInputData(image);
  contour->SetValue(0, 0.0);
  contour->ComputeNormalsOn();
  contour->ComputeScalarsOff();
  contour->Update();
  vtkSmartPointer<vtkPolyData> mesh = contour->GetOutput();
  return mesh;
}

void write_vtp(vtkPolyData* mesh, const std::string& path) {
  auto writer = vtkSmartPointer<vtkXMLPolyDataWriter>::New();
  writer->SetFileName(path.c_str());
  writer->SetInputData(mesh);
  writer->SetDataModeToAppended();
  if (writer->Write() != 1) throw std::runtime_error(path + ": could not write the surface");
}

void write_ply(vtkPolyData* mesh, const std::string& path) {
  auto writer = vtkSmartPointer<vtkPLYWriter>::New();
  writer->SetFileName(path.c_str());
  writer->SetInputData(mesh);
  writer->SetFileTypeToBinary();
  if (writer->Write() != 1) throw std::runtime_error(path + ": could not write the surface");
}

}  // namespace dunesim

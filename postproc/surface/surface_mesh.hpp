// From the implicit function to a triangle mesh: phi sampled on a regular grid, its zero
// level contoured by VTK's flying edges (with vertex normals), and the mesh written for
// ParaView (VTP) or renderers (PLY).
#pragma once
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>

#include <array>
#include <string>
#include <vector>

#include "decomposition/vec3.hpp"
#include "postproc/surface/implicit_surface.hpp"

namespace dunesim {

// phi at origin + (i, j, k) * spacing, x fastest.
struct SampledField {
  Vec3 origin{0, 0, 0};
  double spacing = 0;
  std::array<int, 3> samples{0, 0, 0};
  std::vector<double> phi;
};

// Samples `surface` over the box [lo, hi] (widened to whole samples).
SampledField sample_surface(const ParticleSurface& surface, const Vec3& lo, const Vec3& hi,
                            double spacing);

// The zero level of `field` as triangles with outward vertex normals (VTK's flying edges).
vtkSmartPointer<vtkPolyData> zero_level_mesh(const SampledField& field);

// Writes `mesh` as VTK XML poly data (.vtp) or binary PLY; throws naming the file on failure.
void write_vtp(vtkPolyData* mesh, const std::string& path);
void write_ply(vtkPolyData* mesh, const std::string& path);

}  // namespace dunesim

// From the sampled phi to a triangle mesh: its zero level contoured by VTK's flying edges,
// with double-precision vertices and outward vertex normals.
#pragma once
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>

#include "postproc/surface/sampled_field.hpp"

namespace dunesim {

// The zero level of `field` over the samples `contoured` as triangles, with vertex normals
// (point array "Normals", phi's gradient, pointing out of the body). Samples of `field`
// beyond `contoured` serve the gradients on its faces: a block that carries one layer of
// its neighbour's samples gets the same normals on the shared faces as the neighbour.
// Vertices are interpolated in double precision from the samples' positions, so that two
// blocks that share a plane of equal samples put equal vertices on it, bit for bit.
vtkSmartPointer<vtkPolyData> zero_level_mesh(const SampledField& field,
                                             const SampleRange& contoured);
// The same over the whole field.
vtkSmartPointer<vtkPolyData> zero_level_mesh(const SampledField& field);

// A mesh with no surface, with the same (empty) arrays as zero_level_mesh's: the piece of a
// rank that has no samples.
vtkSmartPointer<vtkPolyData> empty_surface_mesh();

}  // namespace dunesim

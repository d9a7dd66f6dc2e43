// One mesh from the ranks' pieces (dunesim_surface --merge).
#pragma once
#include <mpi.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>

namespace dunesim {

// Collective. Gathers every rank's `piece` (points, "Normals", with_saturation its
// "saturation" point array, triangles) on rank 0 and
// welds the vertices that pieces share on their cut planes, which are equal bit for bit
// (vtkStaticCleanPolyData with tolerance 0): the whole surface on rank 0, nullptr elsewhere.
// Throws std::runtime_error on rank 0 when the pieces are too large for MPI's int counts.
vtkSmartPointer<vtkPolyData> gather_and_weld(MPI_Comm comm, vtkPolyData* piece,
                                             bool with_saturation);

}  // namespace dunesim

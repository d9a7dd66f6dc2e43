// PETSc's errors, agreed across ranks: the physics' PETSc solvers (the pressure, Richards'
// pore water) check every call with check_petsc_on_every_rank, so that an error on one rank
// is raised on all of them before the next collective call.
#pragma once
#include <mpi.h>
#include <petscsys.h>

#include <string>

namespace dunesim {

// PETSc's message for an error it just returned: the specific one ("Unable to find
// requested KSP type nonsense") and the kind ("Unknown type"), without the web link.
std::string petsc_error_text(PetscErrorCode ierr);

// Collective. Throws the same std::runtime_error on every rank ("PETSc failed in WHAT:
// <text> (on rank R)", the lowest failing rank's) when `ierr` is an error on any rank.
// PETSc must return its errors (main pushes PetscReturnErrorHandler).
void check_petsc_on_every_rank(MPI_Comm comm, PetscErrorCode ierr, const std::string& what);

}  // namespace dunesim

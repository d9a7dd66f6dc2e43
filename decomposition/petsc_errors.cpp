#include "decomposition/petsc_errors.hpp"

#include <stdexcept>

#include "decomposition/reductions.hpp"

namespace dunesim {

std::string petsc_error_text(PetscErrorCode ierr) {
  const char* kind = nullptr;
  char* specific = nullptr;
  PetscErrorMessage(ierr, &kind, &specific);
  std::string text = specific && *specific ? specific : "";
  std::string kind_text = kind ? kind : "error " + std::to_string(int(ierr));
  const size_t link = kind_text.find(": http");
  if (link != std::string::npos) kind_text.resize(link);
  return text.empty() ? kind_text : text + " (" + kind_text + ")";
}

void check_petsc_on_every_rank(MPI_Comm comm, PetscErrorCode ierr, const std::string& what) {
  const std::string local_error =
      ierr ? "PETSc failed in " + what + ": " + petsc_error_text(ierr) : "";
  const RankError error = first_error_on_any_rank(comm, local_error);
  if (error.failed())
    throw std::runtime_error(error.message + " (on rank " + std::to_string(error.rank) + ")");
}

}  // namespace dunesim

#include "src/pressure_solver.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "decomposition/reductions.hpp"

namespace dunesim {

namespace {

// Throws with PETSc's own message: every PETSc call here is collective, so all ranks throw.
void check(PetscErrorCode ierr, const char* what) {
  if (ierr) {
    const char* text = nullptr;
    PetscErrorMessage(ierr, &text, nullptr);
    throw std::runtime_error(std::string("PETSc failed in ") + what + ": " + (text ? text : "?"));
  }
}

// BoomerAMG settings measured to cut set-up time 3x on free-surface masks (the matrix
// changes every step, so set-up, not iterations, dominates): HMIS coarsening, ext+i
// interpolation truncated to 4 entries, one level of aggressive coarsening.
const char* kDefaultOptions =
    "-pc_hypre_type boomeramg -pc_hypre_boomeramg_coarsen_type HMIS "
    "-pc_hypre_boomeramg_interp_type ext+i -pc_hypre_boomeramg_P_max 4 "
    "-pc_hypre_boomeramg_agg_nl 1 -pc_hypre_boomeramg_strong_threshold 0.5";

void insert_default_option(const char* name, const char* value) {
  PetscBool set = PETSC_FALSE;
  PetscOptionsHasName(nullptr, nullptr, name, &set);
  if (!set) PetscOptionsSetValue(nullptr, name, value);
}

}  // namespace

PressureSolver::PressureSolver(const Topology& topo, const PressureSolverSpec& spec)
    : topo_(topo), spec_(spec) {
  unknown_.reset(topo.local(Stagger::Cell), Stagger::Cell, -1);
  // Defaults first, so the case file and the command line can override each of them.
  std::string defaults = kDefaultOptions;
  size_t start = 0;
  while (start < defaults.size()) {
    size_t name_end = defaults.find(' ', start);
    size_t value_end = defaults.find(' ', name_end + 1);
    if (value_end == std::string::npos) value_end = defaults.size();
    std::string name = defaults.substr(start, name_end - start);
    std::string value = defaults.substr(name_end + 1, value_end - name_end - 1);
    insert_default_option(name.c_str(), value.c_str());
    start = value_end + 1;
  }
  if (!spec.petsc_options.empty())
    check(PetscOptionsInsertString(nullptr, spec.petsc_options.c_str()), "reading petsc_options");
}

PressureSolver::~PressureSolver() = default;

PressureSolveStats PressureSolver::solve(const MacGrid& g, const Array3<double>& rhs,
                                         Array3<double>& pressure, Halo& halo) {
  const Box owned = topo_.owned_cells(topo_.rank());
  const Array3<uint8_t>& type = g.cell_type;

  // Number the fluid cells: owned ones consecutively from this rank's offset, then learn
  // the neighbours' numbers through the halo.
  int64_t local_count = 0;
  for_each_index(owned, [&](int i, int j, int k) {
    if (type(i, j, k) == kFluid) ++local_count;
  });
  const int64_t first = exclusive_prefix_sum(topo_, local_count);
  unknown_.fill(-1);
  int64_t next = first;
  for_each_index(owned, [&](int i, int j, int k) {
    if (type(i, j, k) == kFluid) unknown_(i, j, k) = next++;
  });
  halo.fill<int64_t>({&unknown_});

  PressureSolveStats stats;
  stats.unknowns = global_sum(topo_, local_count);
  if (stats.unknowns == 0) {
    pressure.fill(0.0);
    return stats;
  }

  Mat A;
  Vec b, x;
  MPI_Comm comm = topo_.comm();
  check(MatCreateAIJ(comm, PetscInt(local_count), PetscInt(local_count), PETSC_DETERMINE,
                     PETSC_DETERMINE, 7, nullptr, 6, nullptr, &A), "MatCreateAIJ");
  check(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE), "MatSetOption");
  check(VecCreateMPI(comm, PetscInt(local_count), PETSC_DETERMINE, &b), "VecCreateMPI");
  check(VecDuplicate(b, &x), "VecDuplicate");

  // A fluid region with no air neighbour anywhere has only Neumann boundaries: its pressure
  // is defined up to a constant and the system needs the constant null space.
  bool touches_air = false;
  std::vector<PetscScalar> rhs_values, guess_values;
  rhs_values.reserve(local_count);
  guess_values.reserve(local_count);
  for_each_index(owned, [&](int i, int j, int k) {
    if (type(i, j, k) != kFluid) return;
    PetscInt row = PetscInt(unknown_(i, j, k));
    PetscInt cols[7];
    PetscScalar vals[7];
    int n = 0;
    double diag = 0;
    const double rho_c = g.density(i, j, k);
    for (int a = 0; a < 3; ++a)
      for (int side : {-1, 1}) {
        Index3 nb{i, j, k};
        nb[a] += side;
        uint8_t t = type(nb[0], nb[1], nb[2]);
        if (t == kSolid) continue;
        double coeff = 1.0 / face_density(kFluid, rho_c, t, g.density(nb[0], nb[1], nb[2]));
        diag += coeff;
        if (t == kFluid) {
          cols[n] = PetscInt(unknown_(nb[0], nb[1], nb[2]));
          vals[n++] = -coeff;
        } else {
          touches_air = true;
        }
      }
    cols[n] = row;
    vals[n++] = diag;
    MatSetValues(A, 1, &row, n, cols, vals, INSERT_VALUES);
    rhs_values.push_back(rhs(i, j, k));
    guess_values.push_back(pressure(i, j, k));
  });
  check(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
  check(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
  {
    PetscScalar* bp;
    PetscScalar* xp;
    VecGetArray(b, &bp);
    VecGetArray(x, &xp);
    for (int64_t n = 0; n < local_count; ++n) {
      bp[n] = rhs_values[n];
      xp[n] = guess_values[n];
    }
    VecRestoreArray(b, &bp);
    VecRestoreArray(x, &xp);
  }
  if (!any_rank(topo_, touches_air)) {
    MatNullSpace nullspace;
    check(MatNullSpaceCreate(comm, PETSC_TRUE, 0, nullptr, &nullspace), "MatNullSpaceCreate");
    check(MatSetNullSpace(A, nullspace), "MatSetNullSpace");
    check(MatNullSpaceRemove(nullspace, b), "MatNullSpaceRemove");
    MatNullSpaceDestroy(&nullspace);
  }

  KSP ksp;
  PC pc;
  check(KSPCreate(comm, &ksp), "KSPCreate");
  check(KSPSetOperators(ksp, A, A), "KSPSetOperators");
  check(KSPSetType(ksp, KSPCG), "KSPSetType");
  check(KSPGetPC(ksp, &pc), "KSPGetPC");
  check(PCSetType(pc, PCHYPRE), "PCSetType");
  check(KSPSetTolerances(ksp, spec_.rtol, 1e-50, PETSC_DEFAULT, spec_.max_iterations),
        "KSPSetTolerances");
  check(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE), "KSPSetInitialGuessNonzero");
  // The true residual, so that rtol bounds the remaining divergence (CG has it for free).
  check(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED), "KSPSetNormType");
  check(KSPSetFromOptions(ksp), "KSPSetFromOptions");
  check(KSPSolve(ksp, b, x), "KSPSolve");

  KSPConvergedReason reason;
  PetscInt its;
  PetscReal rnorm;
  KSPGetConvergedReason(ksp, &reason);
  KSPGetIterationNumber(ksp, &its);
  KSPGetResidualNorm(ksp, &rnorm);
  stats.iterations = int(its);
  stats.residual_norm = double(rnorm);

  pressure.fill(0.0);
  {
    const PetscScalar* xp;
    VecGetArrayRead(x, &xp);
    int64_t n = 0;
    for_each_index(owned, [&](int i, int j, int k) {
      if (type(i, j, k) == kFluid) pressure(i, j, k) = xp[n++];
    });
    VecRestoreArrayRead(x, &xp);
  }
  KSPDestroy(&ksp);
  MatDestroy(&A);
  VecDestroy(&b);
  VecDestroy(&x);
  if (reason < 0)
    throw std::runtime_error("pressure solve diverged (PETSc reason " +
                             std::string(KSPConvergedReasons[reason]) + ") after " +
                             std::to_string(its) + " iterations; try a smaller cfl or other "
                             "[pressure] petsc_options");
  halo.fill<double>({&pressure});
  return stats;
}

}  // namespace dunesim

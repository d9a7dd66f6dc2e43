#include "src/pressure/pressure_solver.hpp"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "decomposition/petsc_errors.hpp"
#include "decomposition/reductions.hpp"

namespace dunesim {

namespace {

// For "-pc_type hypre": BoomerAMG settings measured to cut set-up time 3x on free-surface masks
// (the matrix changes every step, so set-up, not iterations, dominates): HMIS coarsening, ext+i
// interpolation truncated to 4 entries, one level of aggressive coarsening.
const char* kDefaultOptions =
    "-pc_hypre_type boomeramg -pc_hypre_boomeramg_coarsen_type HMIS "
    "-pc_hypre_boomeramg_interp_type ext+i -pc_hypre_boomeramg_P_max 4 "
    "-pc_hypre_boomeramg_agg_nl 1 -pc_hypre_boomeramg_strong_threshold 0.5";

// Calls f(in, out) with the local arrays of two PETSc vectors: the shell matrix's product
// and the shell preconditioner both work on raw arrays in unknown order.
template <class F>
PetscErrorCode with_local_arrays(Vec in, Vec out, F&& f) {
  const PetscScalar* in_values;
  PetscScalar* out_values;
  PetscCall(VecGetArrayRead(in, &in_values));
  PetscCall(VecGetArray(out, &out_values));
  f(in_values, out_values);
  PetscCall(VecRestoreArrayRead(in, &in_values));
  PetscCall(VecRestoreArray(out, &out_values));
  return 0;
}

// The names (without the '-') of the options in PETSc's database that nothing has read.
std::vector<std::string> unread_option_names() {
  PetscInt count = 0;
  char** names = nullptr;
  char** values = nullptr;
  std::vector<std::string> unread;
  if (PetscOptionsLeftGet(nullptr, &count, &names, &values) != 0) return unread;
  unread.assign(names, names + count);
  PetscOptionsLeftRestore(nullptr, &count, &names, &values);
  return unread;
}

bool same_option_name(const std::string& a, const std::string& b) {
  return strcasecmp(a.c_str(), b.c_str()) == 0;
}

// Sets `name` (with its '-') to `value` unless the command line did. The test does not
// read the option (PetscOptionsHasName would), so that a user's option that the solver
// never reads is still reported as such (petsc_options_never_read).
void insert_default_option(const char* name, const char* value) {
  PetscBool read = PETSC_FALSE;
  PetscOptionsUsed(nullptr, name + 1, &read);
  const std::vector<std::string> unread = unread_option_names();
  const bool set = read || std::any_of(unread.begin(), unread.end(), [&](const std::string& n) {
                     return same_option_name(n, name + 1);
                   });
  if (!set) PetscOptionsSetValue(nullptr, name, value);
}

// A word that follows no option name, which PETSc would skip without a word: "ksp_type" in
// "ksp_type cg", "extra" in "-ksp_type cg extra". Empty when there is none.
std::string stray_word(const std::string& options) {
  std::istringstream words(options);
  bool value_allowed = false;
  for (std::string word; words >> std::quoted(word);) {
    const bool is_name = !word.empty() && word[0] == '-';
    if (!is_name && !value_allowed) return word;
    value_allowed = is_name;
  }
  return "";
}

// The option names of an options string: words that start with '-' and are not numbers.
std::vector<std::string> option_names(const std::string& options) {
  std::vector<std::string> names;
  std::istringstream words(options);
  for (std::string word; words >> std::quoted(word);) {
    if (word.size() < 2 || word[0] != '-') continue;
    const bool is_number = std::isdigit(static_cast<unsigned char>(word[1])) || word[1] == '.';
    if (!is_number) names.push_back(word);
  }
  return names;
}

// The solver's own choices, before the options database has its say.
PetscErrorCode set_default_method(KSP ksp) {
  PC pc;
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCSHELL));
  return 0;
}

}  // namespace

std::string petsc_options_problem(const std::string& options) {
  const std::string stray = stray_word(options);
  if (!stray.empty())
    return "'" + stray + "' follows no option name (options are -name or -name value)";
  PetscOptions database = nullptr;
  KSP ksp = nullptr;
  PetscErrorCode ierr = PetscOptionsCreate(&database);
  if (!ierr) ierr = PetscOptionsInsertString(database, options.c_str());
  if (!ierr) ierr = KSPCreate(PETSC_COMM_SELF, &ksp);
  if (!ierr) ierr = PetscObjectSetOptions(reinterpret_cast<PetscObject>(ksp), database);
  if (!ierr) ierr = set_default_method(ksp);
  if (!ierr) ierr = KSPSetFromOptions(ksp);
  const std::string problem = ierr ? "PETSc: " + petsc_error_text(ierr) : "";
  KSPDestroy(&ksp);
  PetscOptionsDestroy(&database);
  return problem;
}

std::vector<std::string> petsc_options_never_read(const std::string& options) {
  const std::vector<std::string> unread = unread_option_names();
  std::vector<std::string> never_read;
  for (const std::string& name : option_names(options)) {
    // PETSc reads it only in PetscFinalize, to list the options nothing read.
    if (same_option_name(name, "-options_left")) continue;
    const bool is_unread = std::any_of(unread.begin(), unread.end(), [&](const std::string& n) {
      return same_option_name(n, name.substr(1));
    });
    if (is_unread && std::find(never_read.begin(), never_read.end(), name) == never_read.end())
      never_read.push_back(name);
  }
  return never_read;
}

void PressureSolver::check(PetscErrorCode ierr, const char* what) const {
  check_petsc_on_every_rank(topo_.comm(), ierr, what);
}

PressureSolver::PressureSolver(const Topology& topo, const PressureSolverSpec& spec)
    : topo_(topo), spec_(spec), multigrid_(topo) {
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

PressureSolver::~PressureSolver() {
  PetscBool finalized = PETSC_FALSE;
  PetscFinalized(&finalized);
  if (!finalized) release_system();
}

void PressureSolver::release_multigrid_vectors() { multigrid_.release_vectors(); }

void PressureSolver::release_system() {
  if (ksp_) KSPDestroy(&ksp_);
  if (matrix_) MatDestroy(&matrix_);
  if (rhs_) VecDestroy(&rhs_);
  if (solution_) VecDestroy(&solution_);
  ksp_ = nullptr;
  matrix_ = nullptr;
  rhs_ = solution_ = nullptr;
}

// Numbers the fluid cells (owned ones consecutively from `first`, the neighbours' numbers
// through the halo) and assembles the matrix. The numbers are needed only here: freed before
// the preconditioner is set up, they are not part of the step's peak memory.
void PressureSolver::assemble_matrix(const MacGrid& g, int64_t first, Halo& halo) {
  const Box owned = topo_.owned_cells(topo_.rank());
  const Array3<uint8_t>& type = g.cell_type;
  const int64_t local_count = local_unknowns_;
  Array3<PetscInt> unknown(topo_.local(Stagger::Cell), Stagger::Cell, -1);
  PetscInt next = PetscInt(first);
  for_each_index(owned, [&](int i, int j, int k) {
    if (type(i, j, k) == kFluid) unknown(i, j, k) = next++;
  });
  halo.fill<PetscInt>({&unknown});

  // Exact preallocation: a row reserves only the neighbours it has, split into this rank's
  // columns and other ranks'. A flat 7 + 6 per row would keep up to 13 unused slots in
  // every row next to air or another rank (PETSc does not give them back on assembly).
  const PetscInt first_row = PetscInt(first), end_row = PetscInt(first + local_count);
  std::vector<PetscInt> local_columns, remote_columns;
  local_columns.reserve(size_t(local_count));
  remote_columns.reserve(size_t(local_count));
  for_each_index(owned, [&](int i, int j, int k) {
    if (type(i, j, k) != kFluid) return;
    PetscInt local = 1, remote = 0;  // the diagonal
    for (int a = 0; a < 3; ++a)
      for (int side : {-1, 1}) {
        Index3 nb{i, j, k};
        nb[a] += side;
        const PetscInt column = unknown(nb[0], nb[1], nb[2]);
        if (column < 0) continue;
        (column >= first_row && column < end_row ? local : remote) += 1;
      }
    local_columns.push_back(local);
    remote_columns.push_back(remote);
  });
  MPI_Comm comm = topo_.comm();
  check(MatCreateAIJ(comm, PetscInt(local_count), PetscInt(local_count), PETSC_DETERMINE,
                     PETSC_DETERMINE, 0, local_columns.data(), 0, remote_columns.data(),
                     &matrix_),
        "MatCreateAIJ");
  std::vector<PetscInt>().swap(local_columns);
  std::vector<PetscInt>().swap(remote_columns);
  check(MatSetOption(matrix_, MAT_SYMMETRIC, PETSC_TRUE), "MatSetOption");
  PetscErrorCode set_error = 0;  // the first, checked by all ranks before the assembly

  for_each_index(owned, [&](int i, int j, int k) {
    if (type(i, j, k) != kFluid) return;
    PetscInt row = PetscInt(unknown(i, j, k));
    PetscInt cols[7];
    PetscScalar vals[7];
    int n = 0;
    double diag = 0;
    for (int a = 0; a < 3; ++a)
      for (int side : {-1, 1}) {
        Index3 nb{i, j, k};
        nb[a] += side;
        const uint8_t t = type(nb[0], nb[1], nb[2]);
        const double coeff = face_coefficient(g, g.cell_type.offset(i, j, k),
                                              g.cell_type.offset(nb[0], nb[1], nb[2]));
        diag += coeff;
        if (t == kFluid) {
          cols[n] = PetscInt(unknown(nb[0], nb[1], nb[2]));
          vals[n++] = -coeff;
        }
      }
    cols[n] = row;
    vals[n++] = diag;
    if (!set_error) set_error = MatSetValues(matrix_, 1, &row, n, cols, vals, INSERT_VALUES);
  });
  check(set_error, "MatSetValues");
  check(MatAssemblyBegin(matrix_, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
  check(MatAssemblyEnd(matrix_, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
}

bool PressureSolver::uses_builtin_multigrid() const {
  char pc_type[64] = "";
  PetscBool set = PETSC_FALSE;
  PetscOptionsGetString(nullptr, nullptr, "-pc_type", pc_type, sizeof pc_type, &set);
  return !set || std::string(pc_type) == PCSHELL;
}

// CG only multiplies by the matrix, so the built-in multigrid's path never stores it: the
// product is computed from the cell types and densities each time (MATSHELL). That saves
// the assembly's time and about 90 bytes per fluid cell.
void PressureSolver::create_matrix_free_operator() {
  check(MatCreateShell(topo_.comm(), PetscInt(local_unknowns_), PetscInt(local_unknowns_),
                       PETSC_DETERMINE, PETSC_DETERMINE, this, &matrix_),
        "MatCreateShell");
  check(MatShellSetOperation(matrix_, MATOP_MULT,
                             reinterpret_cast<void (*)(void)>(&multiply_matrix_free)),
        "MatShellSetOperation");
}

PetscErrorCode PressureSolver::multiply_matrix_free(Mat matrix, Vec p, Vec Ap) {
  void* context = nullptr;
  PetscCall(MatShellGetContext(matrix, &context));
  PressureSolver& self = *static_cast<PressureSolver*>(context);
  return with_local_arrays(p, Ap, [&](const double* in, double* out) {
    self.multigrid_.multiply(in, out);
  });
}

namespace {

// Whether a fluid cell of `cells` has an air neighbour. Stops at the first: a free surface
// is usually met in the first rows, and the scan runs before every pressure solve.
bool any_fluid_cell_touches_air(const Array3<uint8_t>& type, const Box& cells) {
  for (int k = cells.lo[2]; k < cells.hi[2]; ++k)
    for (int j = cells.lo[1]; j < cells.hi[1]; ++j)
      for (int i = cells.lo[0]; i < cells.hi[0]; ++i)
        if (type(i, j, k) == kFluid && has_air_neighbour(type, i, j, k)) return true;
  return false;
}

}  // namespace

// A fluid region with no air neighbour anywhere has only Neumann boundaries: its pressure
// is defined up to a constant and the system needs the constant null space.
void PressureSolver::attach_null_space_if_sealed(const MacGrid& g) {
  const Array3<uint8_t>& type = g.cell_type;
  if (any_rank(topo_, any_fluid_cell_touches_air(type, topo_.owned_cells(topo_.rank())))) return;
  MatNullSpace nullspace;
  check(MatNullSpaceCreate(topo_.comm(), PETSC_TRUE, 0, nullptr, &nullspace),
        "MatNullSpaceCreate");
  check(MatSetNullSpace(matrix_, nullspace), "MatSetNullSpace");
  MatNullSpaceDestroy(&nullspace);
}

// Fills unknown_runs_ with the fluid cells of `owned`; returns their number.
int64_t PressureSolver::find_unknown_runs(const Array3<uint8_t>& type, const Box& owned) {
  int64_t count = 0;
  unknown_runs_.clear();
  for_each_row(owned, [&](int i, int j, int k, int length) {
    const uint8_t* row = &type(i, j, k);
    for (int m = 0; m < length;) {
      if (row[m] != kFluid) {
        ++m;
        continue;
      }
      const int start = m;
      while (m < length && row[m] == kFluid) ++m;
      unknown_runs_.push_back({i + start, j, k, m - start});
      count += m - start;
    }
  });
  return count;
}

PressureSolveStats PressureSolver::solve(const MacGrid& g, const Array3<double>& rhs,
                                         Array3<double>& pressure, Halo& halo) {
  return solve(g, rhs, pressure, halo, spec_.rtol);
}

PressureSolveStats PressureSolver::solve(const MacGrid& g, const Array3<double>& rhs,
                                         Array3<double>& pressure, Halo& halo, double rtol) {
  release_system();
  const Box owned = topo_.owned_cells(topo_.rank());
  const int64_t local_count = find_unknown_runs(g.cell_type, owned);
  const int64_t first = exclusive_prefix_sum(topo_, local_count);
  local_unknowns_ = local_count;
  global_unknowns_ = global_sum(topo_, local_count);
  if (global_unknowns_ > int64_t(PETSC_MAX_INT))
    throw std::runtime_error("pressure system has " + std::to_string(global_unknowns_) +
                             " unknowns, more than this PETSc's index type can number; use a "
                             "PETSc built with --with-64-bit-indices");
  if (global_unknowns_ == 0) {
    pressure.fill(0.0);
    return {};
  }
  const bool matrix_free = uses_builtin_multigrid();
  if (matrix_free) {
    multigrid_.setup(g);
    create_matrix_free_operator();
  } else {
    assemble_matrix(g, first, halo);
  }
  attach_null_space_if_sealed(g);
  create_krylov_solver(rtol);
  check(load_vector(rhs, rhs_), "loading the right-hand side");
  check(load_vector(pressure, solution_), "loading the initial guess");
  return run_krylov(pressure, halo, true);
}

// The Krylov solver for matrix_ and its vectors, solving to `rtol` unless PETSc's options
// say otherwise.
void PressureSolver::create_krylov_solver(double rtol) {
  MPI_Comm comm = topo_.comm();
  check(VecCreateMPI(comm, PetscInt(local_unknowns_), PETSC_DETERMINE, &rhs_), "VecCreateMPI");
  check(VecDuplicate(rhs_, &solution_), "VecDuplicate");
  PC pc;
  check(KSPCreate(comm, &ksp_), "KSPCreate");
  check(KSPSetOperators(ksp_, matrix_, matrix_), "KSPSetOperators");
  check(set_default_method(ksp_), "setting CG with a shell preconditioner");
  check(KSPGetPC(ksp_, &pc), "KSPGetPC");
  check(PCShellSetContext(pc, this), "PCShellSetContext");
  check(PCShellSetApply(pc, &PressureSolver::apply_multigrid), "PCShellSetApply");
  check(PCShellSetName(pc, "geometric multigrid V-cycle (dunesim)"), "PCShellSetName");
  check(KSPSetTolerances(ksp_, rtol, 1e-50, PETSC_DEFAULT, spec_.max_iterations),
        "KSPSetTolerances");
  // The true residual, so that rtol bounds the remaining divergence (CG has it for free).
  check(KSPSetNormType(ksp_, KSP_NORM_UNPRECONDITIONED), "KSPSetNormType");
  check(KSPSetFromOptions(ksp_), "KSPSetFromOptions");
  // Start from the last step's pressure: it changes little from step to step.
  check(KSPSetInitialGuessNonzero(ksp_, PETSC_TRUE), "KSPSetInitialGuessNonzero");
}

void PressureSolver::release_krylov_vectors() {
  if (!uses_builtin_multigrid()) return;
  if (ksp_) KSPDestroy(&ksp_);
  if (rhs_) VecDestroy(&rhs_);
  if (solution_) VecDestroy(&solution_);
  ksp_ = nullptr;
  rhs_ = solution_ = nullptr;
}

PressureSolveStats PressureSolver::solve_again(Array3<double>& rhs_then_solution, Halo& halo,
                                               double rtol) {
  if (global_unknowns_ == 0) {
    rhs_then_solution.fill(0.0);
    return {};
  }
  if (!matrix_) throw std::logic_error("solve_again() called before solve()");
  if (!ksp_) create_krylov_solver(rtol);
  check(load_vector(rhs_then_solution, rhs_), "loading the right-hand side");
  check(VecZeroEntries(solution_), "VecZeroEntries");
  check(KSPSetTolerances(ksp_, rtol, 1e-50, PETSC_DEFAULT, spec_.max_iterations),
        "KSPSetTolerances");
  return run_krylov(rhs_then_solution, halo, false);
}

// PCSHELL's apply: one V-cycle. A system with the constant null space (fluid sealed in by
// walls) gets the null space removed from the result too, as CG needs.
PetscErrorCode PressureSolver::apply_multigrid(PC pc, Vec r, Vec z) {
  void* context = nullptr;
  PetscCall(PCShellGetContext(pc, &context));
  PressureSolver& self = *static_cast<PressureSolver*>(context);
  PetscCall(with_local_arrays(r, z, [&](const double* in, double* out) {
    self.multigrid_.apply(in, out);
  }));
  MatNullSpace nullspace = nullptr;
  PetscCall(MatGetNullSpace(self.matrix_, &nullspace));
  if (nullspace) PetscCall(MatNullSpaceRemove(nullspace, z));
  return 0;
}

// Copies `from`'s values at the unknowns into `to`, in unknown order.
PetscErrorCode PressureSolver::load_vector(const Array3<double>& from, Vec to) const {
  PetscScalar* values;
  PetscCall(VecGetArray(to, &values));
  PetscScalar* next = values;
  for (const CellRun& run : unknown_runs_) {
    const double* start = &from(run.i, run.j, run.k);
    next = std::copy(start, start + run.length, next);
  }
  PetscCall(VecRestoreArray(to, &values));
  return 0;
}

// Copies the solution into `pressure`, 0 outside fluid cells.
PetscErrorCode PressureSolver::store_solution(Array3<double>& pressure) const {
  pressure.fill(0.0);
  const PetscScalar* xp;
  PetscCall(VecGetArrayRead(solution_, &xp));
  const PetscScalar* solution = xp;
  for (const CellRun& run : unknown_runs_) {
    std::copy(solution, solution + run.length, &pressure(run.i, run.j, run.k));
    solution += run.length;
  }
  PetscCall(VecRestoreArrayRead(solution_, &xp));
  return 0;
}

// Solves from the right-hand side and initial guess loaded into rhs_ and solution_ and
// leaves the solution in `pressure`, halo-filled; `warm_start`: the guess is not zero.
PressureSolveStats PressureSolver::run_krylov(Array3<double>& pressure, Halo& halo,
                                              bool warm_start) {
  MatNullSpace nullspace = nullptr;
  check(MatGetNullSpace(matrix_, &nullspace), "MatGetNullSpace");
  if (nullspace) check(MatNullSpaceRemove(nullspace, rhs_), "MatNullSpaceRemove");
  check(KSPSolve(ksp_, rhs_, solution_), "KSPSolve");

  KSPConvergedReason reason;
  PetscInt its;
  PetscReal rnorm;
  KSPGetConvergedReason(ksp_, &reason);
  // The first solve starts from the last step's pressure. After a much shorter step (one cut
  // to land on an output time), whose pressure grows as 1/dt where it removes the divergence
  // the particles brought, that guess can be thousands of times worse than none, and PETSc's
  // divergence test stops the solve before its first iteration: start again from zero. The
  // reason is global, so every rank starts again.
  if (reason == KSP_DIVERGED_DTOL && warm_start) {
    check(VecZeroEntries(solution_), "VecZeroEntries");
    check(KSPSolve(ksp_, rhs_, solution_), "KSPSolve");
    KSPGetConvergedReason(ksp_, &reason);
  }
  KSPGetIterationNumber(ksp_, &its);
  KSPGetResidualNorm(ksp_, &rnorm);
  if (reason < 0)
    throw PressureSolveDiverged("pressure solve diverged (PETSc reason " +
                                std::string(KSPConvergedReasons[reason]) + ") after " +
                                std::to_string(its) +
                                " iterations; try a smaller cfl or other "
                                "[pressure] petsc_options");
  PressureSolveStats stats;
  stats.iterations = int(its);
  stats.residual_norm = double(rnorm);
  stats.unknowns = global_unknowns_;
  check(store_solution(pressure), "reading the solution");
  halo.fill<double>({&pressure});
  return stats;
}

}  // namespace dunesim

#!/usr/bin/env bash
# Usage: check_petsc_errors.sh DUNESIM_EXE
#
# PETSc errors must end `dunesim run` on every rank (2 ranks; the first also on 1) with one
# message: options PETSc rejects, from --petsc or from the case, before any work with status 2;
# an error PETSc only finds in the solve (a factorisation package that does not exist) with
# status 3, as is a solve that diverges (naming the material parameters beyond their stable
# range); an option that the solver never read (misspelt), after the first solve with status
# 2. Before PETSc's errors were returned to the caller, its default handler made every rank but
# rank 0 sleep and exit 0 while rank 0 waited in MPI_Finalize.
set -u
. "$(dirname "$0")/bad_input_common.sh"
take_dunesim_argument "$@"
enter_temporary_directory

write_water_case tiny.toml
expect_failure 2 '--petsc "-ksp_type nonsense": PETSc: Unable to find requested KSP type nonsense' \
  "$exe" run tiny.toml --quiet --petsc "-ksp_type nonsense"
expect_failure 2 "--petsc \"-ksp_type cg extra\": 'extra' follows no option name" \
  "$exe" run tiny.toml --quiet --petsc "-ksp_type cg extra"

cp tiny.toml case_options.toml
printf '[pressure]\npetsc_options = "-pc_type hypre -pc_hypre_type nonsense"\n' >> case_options.toml
expect_failure 2 "key 'pressure.petsc_options': PETSc: Unknown option nonsense for -pc_hypre_type" \
  "$exe" run case_options.toml --quiet

expect_failure 3 "error: PETSc failed in KSPSolve: Could not locate solver type nonsense" \
  "$exe" run tiny.toml --quiet --petsc "-pc_type lu -pc_factor_mat_solver_type nonsense"
[ ! -e out/tiny_000001.h5 ] || fail "a failed run wrote a frame after the failure"

# A pressure solve that diverges (one Krylov iteration allowed) names the material parameters
# beyond their stable range for the grid (status 3): a mud viscosity of 1e6 Pa s, 1e4 times
# the explicit bound, or none.
expect_failure 3 "pressure solve diverged (PETSc reason DIVERGED_ITS) after 1 iterations; try a smaller cfl or other [pressure] petsc_options; no material parameter is beyond its stable range for this grid" \
  "$exe" run tiny.toml --quiet --petsc "-ksp_max_it 1"
cp tiny.toml mud.toml
cat >> mud.toml <<'EOF_CASE'
[[material]]
name = "mud"
kind = "sand"
porosity = 0.4
mud_viscosity = 1e6
[[source]]
material = "mud"
shape = "block"
min = [0.0, 0.0, 0.1]
max = [0.2, 0.2, 0.15]
EOF_CASE
# (The list follows "material parameters beyond their stable range for this grid:", a line each.)
expect_failure 3 "  material[1].mud_viscosity = 1e+06 Pa s: mud_viscosity dt / (density dx^2) = 1e+04 at dt = 0.01 s" \
  "$exe" run mud.toml --quiet --petsc "-ksp_max_it 1"

# A misspelt option name, which PETSc alone would skip without a word: once the solver has
# solved, every option given must have been read (status 2, naming the option and where it
# came from).
expect_failure 2 '--petsc "-ksp_typo gmres": PETSc never read -ksp_typo (misspelt, or not an option' \
  "$exe" run tiny.toml --quiet --petsc "-ksp_typo gmres"
cp tiny.toml case_typo.toml
printf '[pressure]\npetsc_options = "-pc_type hypre -pc_hypre_boomeramg_strong_threshhold 0.6"\n' \
  >> case_typo.toml
expect_failure 2 "case_typo.toml: key 'pressure.petsc_options': PETSc never read -pc_hypre_boomeramg_strong_threshhold" \
  "$exe" run case_typo.toml --quiet
# An option of a preconditioner that is not the one in use changes nothing either.
expect_failure 2 '--petsc "-pc_hypre_boomeramg_P_max 2": PETSc never read -pc_hypre_boomeramg_P_max' \
  "$exe" run tiny.toml --quiet --petsc "-pc_hypre_boomeramg_P_max 2"
# Options that only the solve reads, and one that dunesim also sets by default, are read.
timeout -k 10 "$(scaled 60)" mpiexec -n 2 --oversubscribe "$exe" run tiny.toml --quiet \
  --max-steps 2 --output accepted \
  --petsc "-ksp_converged_reason -pc_type hypre -pc_hypre_boomeramg_P_max 2" ||
  fail "a run with options that the solver reads failed"
echo "PASS"

// Whether a case's physics can be stepped in a bounded number of steps and substeps: a value
// the case reader accepts (a conductivity of 1e6 m/s, a shear modulus of 1e300 Pa) can still
// ask for millions of substeps a step, or more steps than any run will take, and the run would
// grind on with nothing printed. `dunesim check` and `dunesim run` refuse such a case before
// the first step, naming the key, its value and the figure it leads to.
#pragma once
#include "io/case_config.hpp"

namespace dunesim {

// The most pore-water substeps one step may take (each a halo exchange), and the most steps a
// run may take. The first step is the longest a case allows (its max_dt, or the CFL step of a
// fall from rest, sqrt(g dx) across a cell), so it bounds every step's substeps.
constexpr double kMaxPercolationSubsteps = 1000;
constexpr double kMaxSteps = 1e8;

// Throws CaseError naming the material's key when the budget above is exceeded. With
// `end_time_option` > 0 (`dunesim run --end-time`) the run ends then instead of at the case's
// [time] end, and a step count beyond the bound is a UsageError naming --end-time. The same
// on every rank: it reads only the case.
void check_physics_budget(const CaseConfig& config, double end_time_option = -1);

}  // namespace dunesim

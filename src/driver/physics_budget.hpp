// Whether a case's physics can be stepped in a bounded number of steps and substeps: a value
// the case reader accepts (a conductivity of 1e6 m/s, a shear modulus of 1e300 Pa) can still
// ask for millions of substeps a step, or more steps than any run will take, and the run would
// grind on with nothing printed. `dunesim check` and `dunesim run` refuse such a case before
// the first step, naming the key, its value and the figure it leads to.
#pragma once
#include <string>

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

// The material parameters that are beyond their stable range for this grid at step `dt`, as
// one line each ("material[0].propagation_rate = 1e+300 m^2/s: ..."), with the figure and its
// bound: a wet sand's diffusion number propagation_rate dt / dx^2 (stable up to 1/6) and its
// drainage, dt against n (1 - S') dx / conductivity; the mud's viscous number
// mud_viscosity dt / (density dx^2) (up to 1/6); the elastic wave limit against dt. Empty
// when none is. Added to the error when the pressure solve diverges; it reads only the case,
// so it is the same on every rank.
std::string extreme_material_parameters(const CaseConfig& config, double dt);

}  // namespace dunesim

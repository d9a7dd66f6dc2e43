#include "src/driver/physics_budget.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "src/sand/sand_model.hpp"
#include "src/wet/percolation.hpp"

namespace dunesim {

namespace {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

// The longest step the flow allows: max_dt, or the CFL step of a fall from rest.
double longest_step(const CaseConfig& config) {
  const Vec3& g = config.gravity;
  const double gravity = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  double dt = config.max_dt;
  if (gravity > 0)
    dt = std::min(dt, config.cfl * config.cell_size / std::sqrt(gravity * config.cell_size));
  return dt;
}

// The key of a pore-water parameter that sets the substep limit `limit`.
std::string percolation_key(const WetSandSpec& wet, double dx, double limit) {
  const bool by_diffusion =
      wet.propagation_rate > 0 && dx * dx / (6 * wet.propagation_rate) <= limit;
  return by_diffusion ? "propagation_rate" : "conductivity";
}

}  // namespace

void check_physics_budget(const CaseConfig& config) {
  const double dx = config.cell_size, dt = longest_step(config);
  for (size_t m = 0; m < config.materials.size(); ++m) {
    const MaterialSpec& material = config.materials[m];
    if (material.kind != MaterialKind::Sand) continue;
    const std::string prefix = "material[" + std::to_string(m) + "].";
    const double limit = percolation_substep_limit(material.wet, dx);
    // Richards' pore water is implicit: its conductivity cuts no step.
    const bool explicit_pore_water = material.wet.pore_flow == PoreFlow::Diffusion;
    if (material.wet.holds_water() && explicit_pore_water && std::isfinite(limit) &&
        dt / limit > kMaxPercolationSubsteps) {
      const std::string key = percolation_key(material.wet, dx, limit);
      const double value =
          key == "conductivity" ? material.wet.conductivity : material.wet.propagation_rate;
      throw CaseError(config.file, prefix + key,
                      number(value) + " makes the pore water take " + number(dt / limit) +
                          " substeps a step at cell_size " + number(dx) + " m (at most " +
                          number(kMaxPercolationSubsteps) + "); use a smaller value");
    }
    const double model_limit = make_sand_model(material)->time_step_limit(dx);
    if (model_limit < dt && config.end_time / model_limit > kMaxSteps)
      throw CaseError(config.file, prefix + "shear_modulus",
                      number(material.rheology.shear_modulus) + " Pa limits the step to " +
                          number(model_limit) + " s, " + number(config.end_time / model_limit) +
                          " steps to [time] end (at most " + number(kMaxSteps) +
                          "); use a smaller shear_modulus");
  }
  if (config.end_time / dt > kMaxSteps)
    throw CaseError(config.file, "time.end",
                    number(config.end_time) + " s takes at least " +
                        number(config.end_time / dt) + " steps of " + number(dt) +
                        " s (at most " + number(kMaxSteps) + ")");
}

}  // namespace dunesim

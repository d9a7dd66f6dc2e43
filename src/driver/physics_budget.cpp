#include "src/driver/physics_budget.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "src/driver/run_driver.hpp"
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

// The explicit bound on a diffusion number nu dt / dx^2 in three dimensions.
constexpr double kStableDiffusionNumber = 1.0 / 6;

// The longest step each of a material's parameters allows on cells of dx, infinite where the
// parameter plays no part: the pore water's capillary diffusion, dx^2 / (6 propagation_rate),
// and drainage, n (1 - S') dx / conductivity, and the percolation's substep for both
// (percolation_substep_limit; none for Richards' implicit pore water); the mud's viscosity,
// density dx^2 / (6 mud_viscosity); the sand model's elastic waves.
struct MaterialLimits {
  double diffusion_step, drainage_step, pore_water_substep, viscous_step, elastic_step;
};

MaterialLimits material_limits(const MaterialSpec& material, double dx) {
  const double inf = std::numeric_limits<double>::infinity();
  const WetSandSpec& wet = material.wet;
  MaterialLimits limits{inf, inf, inf, inf, inf};
  // Richards' pore water is implicit: its conductivity cuts no step.
  if (wet.holds_water() && wet.pore_flow == PoreFlow::Diffusion) {
    WetSandSpec diffusion = wet, drainage = wet;
    diffusion.conductivity = 0;
    drainage.propagation_rate = 0;
    limits.diffusion_step = percolation_substep_limit(diffusion, dx);
    limits.drainage_step = percolation_substep_limit(drainage, dx);
    limits.pore_water_substep = percolation_substep_limit(wet, dx);
  }
  if (wet.holds_water() && wet.mud_viscosity > 0)
    limits.viscous_step = kStableDiffusionNumber * material.density * dx * dx / wet.mud_viscosity;
  limits.elastic_step = make_sand_model(material)->time_step_limit(dx);
  return limits;
}

}  // namespace

void check_physics_budget(const CaseConfig& config, double end_time_option) {
  const double dx = config.cell_size, dt = longest_step(config);
  const bool by_option = end_time_option > 0;
  const double end_time = by_option ? end_time_option : config.end_time;
  const std::string end_name = by_option ? "--end-time " + number(end_time) + " s" : "[time] end";
  for (size_t m = 0; m < config.materials.size(); ++m) {
    const MaterialSpec& material = config.materials[m];
    if (material.kind != MaterialKind::Sand) continue;
    const std::string prefix = "material[" + std::to_string(m) + "].";
    const MaterialLimits limits = material_limits(material, dx);
    const double limit = limits.pore_water_substep;
    if (std::isfinite(limit) && dt / limit > kMaxPercolationSubsteps) {
      const std::string key =
          limits.diffusion_step <= limits.drainage_step ? "propagation_rate" : "conductivity";
      const double value =
          key == "conductivity" ? material.wet.conductivity : material.wet.propagation_rate;
      throw CaseError(config.file, prefix + key,
                      number(value) + " makes the pore water take " + number(dt / limit) +
                          " substeps a step at cell_size " + number(dx) + " m (at most " +
                          number(kMaxPercolationSubsteps) + "); use a smaller value");
    }
    const double model_limit = limits.elastic_step;
    if (model_limit < dt && end_time / model_limit > kMaxSteps) {
      const std::string problem =
          number(material.rheology.shear_modulus) + " Pa limits the step to " +
          number(model_limit) + " s, " + number(end_time / model_limit) + " steps to " +
          end_name + " (at most " + number(kMaxSteps) + "); use a smaller shear_modulus";
      if (by_option)
        throw UsageError("--end-time " + number(end_time) + ": " + config.file + ": key '" +
                         prefix + "shear_modulus': " + problem + " or a shorter --end-time");
      throw CaseError(config.file, prefix + "shear_modulus", problem);
    }
  }
  if (end_time / dt > kMaxSteps) {
    const std::string problem = number(end_time) + " s takes at least " + number(end_time / dt) +
                                " steps of " + number(dt) + " s (at most " + number(kMaxSteps) +
                                ")";
    if (by_option) throw UsageError("--end-time " + number(end_time) + ": " + problem);
    throw CaseError(config.file, "time.end", problem);
  }
}

std::string extreme_material_parameters(const CaseConfig& config, double dt) {
  const double dx = config.cell_size;
  std::string lines;
  auto add = [&](size_t m, const std::string& key, const std::string& value,
                 const std::string& figure) {
    lines += "\n  material[" + std::to_string(m) + "]." + key + " = " + value + ": " + figure;
  };
  const std::string at = " at dt = " + number(dt) + " s and cell_size " + number(dx) + " m";
  for (size_t m = 0; m < config.materials.size(); ++m) {
    const MaterialSpec& material = config.materials[m];
    if (material.kind != MaterialKind::Sand) continue;
    const WetSandSpec& wet = material.wet;
    const MaterialLimits limits = material_limits(material, dx);
    if (dt > limits.diffusion_step)
      add(m, "propagation_rate", number(wet.propagation_rate) + " m^2/s",
          "propagation_rate dt / dx^2 = " + number(wet.propagation_rate * dt / (dx * dx)) + at +
              " (stable up to " + number(kStableDiffusionNumber) + ")");
    if (dt > limits.drainage_step)
      add(m, "conductivity", number(wet.conductivity) + " m/s",
          "drains a cell's pores in " + number(limits.drainage_step) + " s, " +
              number(dt / limits.drainage_step) + " times within dt" + at);
    if (dt > limits.viscous_step)
      add(m, "mud_viscosity", number(wet.mud_viscosity) + " Pa s",
          "mud_viscosity dt / (density dx^2) = " +
              number(wet.mud_viscosity * dt / (material.density * dx * dx)) + at +
              " (stable up to " + number(kStableDiffusionNumber) + ")");
    if (dt > limits.elastic_step)
      add(m, "shear_modulus", number(material.rheology.shear_modulus) + " Pa",
          "its elastic waves allow steps of " + number(limits.elastic_step) + " s, " +
              number(dt / limits.elastic_step) + " times shorter than dt" + at);
  }
  return lines;
}

}  // namespace dunesim

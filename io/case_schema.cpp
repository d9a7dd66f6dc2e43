#include "io/case_schema.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace dunesim {

namespace {
constexpr double kMaxInt = 2147483647.0;  // INT_MAX: an int field
// The largest particle stride a frame or Catalyst accepts, 2^40: beyond any particle count.
constexpr double kMaxParticleStride = 1099511627776.0;
}  // namespace

// clang-format off
const std::vector<CaseKey>& case_schema() {
  static const std::vector<CaseKey> schema = {
    {"case", {"name"}, false, "string", "-", "the file name without extension",
     kAnyValue, "a file name: letters, digits, `_`, `-` and `.`, at most 200 of them, not `.` or `..`",
     {}, {}, ""},
    {"domain", {"size"}, false, "[x, y, z]", "m", "required",
     kPositive, "",
     {}, {}, ""},
    {"domain", {"cell_size"}, false, "number", "m", "required",
     kPositive, "see below",
     {}, {}, ""},
    {"domain", {"wall_friction"}, false, "number", "-", "0",
     kNonNegative, "Coulomb mu of the box walls against sand (water always slips)",
     {}, {}, ""},
    {"domain", {"frictionless_walls"}, false, "array of strings", "-", "`[]`",
     kAnyValue, "walls from `\"x-\"`, `\"x+\"`, `\"y-\"`, `\"y+\"`, `\"z-\"`, `\"z+\"` (`\"x-\"` is x = 0) that have no friction whatever `wall_friction` says: symmetry planes, e.g. `[\"x-\", \"y-\"]` for a quarter of an axisymmetric scene in the corner",
     {}, {}, ""},
    {"physics", {"gravity"}, false, "[x, y, z]", "m/s^2", "`[0, 0, -9.81]`",
     kAnyValue, "any",
     {}, {}, ""},
    {"time", {"end"}, false, "number", "s", "required",
     kPositive, "",
     {}, {}, ""},
    {"time", {"max_steps"}, false, "integer", "-", "0 (no limit)",
     Range{0.0, kInf}, "",
     {}, {}, ""},
    {"time", {"cfl"}, false, "number", "cells per step", "1.0",
     Range{0.0, 5.0, false, true}, "",
     {}, {}, ""},
    {"time", {"max_dt"}, false, "number", "s", "0.01",
     kPositive, "",
     {}, {}, ""},
    {"seeding", {"jitter"}, false, "number", "-", "1.0",
     kUnitInterval, "0 = particles on a regular 2 x 2 x 2 sub-grid per cell",
     {}, {}, ""},
    {"seeding", {"seed"}, false, "integer", "-", "1",
     Range{0.0, kInf}, "seeds the jitter",
     {}, {}, ""},
    {"output", {"directory"}, false, "string", "-", "`\"output/<name>\"`",
     kAnyValue, "non-empty; relative to the working directory",
     {}, {}, ""},
    {"output", {"interval"}, false, "number", "s", "0.04",
     kNonNegative, "0 = a frame every step; at most 1000000 frames up to `[time] end`",
     {}, {}, ""},
    {"output", {"grid_fields"}, false, "boolean", "-", "false",
     kAnyValue, "also write the pressure and the fluid mask",
     {}, {}, ""},
    {"output", {"precision"}, false, "string", "-", "`\"double\"`",
     kAnyValue, "`\"double\"` or `\"single\"`: position, velocity and water content as float32 in the frames (half the bytes; positions keep 6e-8 of the domain's size)",
     {}, {}, ""},
    {"output", {"particle_stride"}, false, "integer", "-", "1",
     Range{1.0, kMaxParticleStride}, "that is, up to 2^40; frames hold only the particles whose id is a multiple of it (a preview; the same particles on any rank count)",
     {}, {}, ""},
    {"load_balance", {"interval_steps"}, false, "integer", "steps", "20",
     Range{0.0, kMaxInt}, "how often the ranks compare their work (0: only the start-up balance)",
     {}, {}, ""},
    {"load_balance", {"threshold"}, false, "number", "-", "1.1",
     Range{1.0, kInf, false, true}, "the blocks are re-cut when the busiest rank has more than this times the mean work",
     {}, {}, ""},
    {"load_balance", {"sand_particle_work"}, false, "number", "-", "1.2",
     kPositive, "the work of a sand particle counted as this many water particles (see below)",
     {}, {}, ""},
    {"pressure", {"rtol"}, false, "number", "-", "1e-6",
     Range{0.0, 1.0, false, false},
     "relative residual tolerance of the pressure solve. A case with sand projects twice a "
     "step: its first solve, which gives the friction its pressure, stops at the larger of "
     "`rtol` and 1e-5, and the second, after the sand stages, removes 99.9% of the "
     "divergence left (`src/pressure/projection.hpp`)",
     {}, {}, ""},
    {"pressure", {"max_iterations"}, false, "integer", "-", "500",
     Range{1.0, kMaxInt}, "",
     {}, {}, ""},
    {"pressure", {"petsc_options"}, false, "string", "-", "`\"\"`",
     kAnyValue, "added to PETSc's options database, e.g. `\"-pc_type gamg\"`",
     {}, {}, ""},
    {"pressure", {"free_surface"}, false, "string", "-", "`\"first_order\"`",
     kAnyValue, "`\"first_order\"` (p = 0 at the centre of the first air cell) or `\"ghost_fluid\"` (p = 0 where the cells' smoothed fill crosses 1/2 between a fluid and an air cell centre; `src/pressure/free_surface.hpp`)",
     {}, {}, ""},
    {"material", {"name"}, false, "string", "-", "required",
     kAnyValue, "non-empty, unique",
     {}, {}, ""},
    {"material", {"kind"}, false, "string", "-", "required",
     kAnyValue, "`\"water\"` or `\"sand\"`",
     {}, {}, ""},
    {"material", {"density"}, false, "number", "kg/m^3", "1000 (water), 1600 (sand)",
     kPositive, "",
     {}, {}, ""},
    {"material", {"flip_ratio"}, false, "number", "-", "0.95 (water, elastic-plastic sand), 0.05 (other sand under PIC/FLIP)",
     kUnitInterval, "1 = pure FLIP, 0 = pure PIC; given without `transfer`, it makes the transfer `\"flip\"`",
     {}, {}, ""},
    {"material", {"transfer"}, false, "string", "-", "`\"apic\"` (sand of the validated model), `\"flip\"` (the rest)",
     kAnyValue, "`\"flip\"` (PIC/FLIP blended by `flip_ratio`), `\"apic\"` (the affine particle-in-cell method, Jiang et al. 2015: particles carry a velocity gradient; no `flip_ratio`) or `\"rpic\"` (APIC keeping only the gradient's rotation); see `docs/findings/apic_rpic_ghost_fluid.md`",
     {}, {}, ""},
    {"material", {"friction_angle"}, false, "number", "degrees", "30",
     Range{0.0, 90.0, false, false}, "sand only",
     {"sand"}, {}, ""},
    {"material", {"cohesion", "c_dry"}, true, "number", "Pa", "0",
     kNonNegative, "sand only; the dry cohesion when the sand holds water",
     {"sand"}, {}, ""},
    {"material", {"rheology"}, false, "string", "-", "`\"zhu_bridson\"`",
     kAnyValue, "`\"zhu_bridson\"` (the paper's yield test and frictional stress), `\"mu_i\"` (Jop, Forterre & Pouliquen 2006: mu_s = tan(friction_angle) for the yield test, mu(I) when sliding; `src/sand/sand_rheology.hpp`) or `\"elastic_plastic\"` (a stress that builds up with deformation and yields on Mohr-Coulomb's surface, so cohesive cuts and moist columns stand up to Rankine's critical height; small time steps; `src/sand/elastic_plastic_sand.hpp`) or `\"rigid_plastic\"` (a Drucker-Prager solid, yield stress tan(friction_angle) p + cohesion, solved implicitly each step with the walls' friction: heaps stand at `friction_angle` and deposits do not depend on the time step, at several times the cost; `src/sand/rigid_plastic_sand.hpp`); sand only",
     {"sand"}, {}, ""},
    {"material", {"model"}, false, "string", "-", "`\"validated\"`",
     kAnyValue, "`zhu_bridson` only: the defaults of `transfer`, `rigid_cell_velocity`, `culmann_wedges_yield` and `resting_grains_hold`. `\"validated\"`: APIC, rigid cells moving with their cluster, Culmann's wedges (with gravity along -z) and resting grains holding, the model that meets Lube et al.'s collapse laws within 12% (axisymmetric) and 19% (plane) (`docs/findings/laboratory_collapses.md`); `\"zhu_bridson_2005\"`: the paper's 95% PIC, interpolated rigid cells and no wedges. A key given on its own overrides its model's default",
     {"sand"}, {"zhu_bridson"}, ""},
    {"material", {"surface_static_friction"}, false, "boolean", "-", "true",
     kAnyValue, "`zhu_bridson` and `mu_i` only: a slow surface cell on a slope flatter than `friction_angle`, or resting on a rough floor, stays rigid (static friction, `src/sand/surface_rest.hpp`); `false` gives the paper's yield test alone, under which deposits creep flat",
     {"sand"}, {"zhu_bridson", "mu_i"}, "sand carries its weight with its own stress"},
    {"material", {"rigid_cell_velocity"}, false, "string", "-", "`\"own_cell\"` (the validated model), `\"interpolated\"` (the rest)",
     kAnyValue, "`zhu_bridson` and `mu_i` only: `\"interpolated\"` (a particle in a rigid cell takes the grid's trilinear interpolation, as every other particle does) or `\"own_cell\"` (it takes its rigid cluster's fitted motion, so it moves with the cluster and a flow next to the cluster does not drag it along; `docs/findings/rigid_cells_move_with_their_cluster.md`)",
     {"sand"}, {"zhu_bridson", "mu_i"}, "sand has no rigid cells"},
    {"material", {"steep_surface_yields"}, false, "boolean", "-", "false",
     kAnyValue, "`zhu_bridson` and `mu_i` only: a surface cell (not on a floor) whose slope its friction and cohesion cannot hold, rho g dx (sin(theta) - tan(phi) cos(theta)) > c, yields even at rest, where the paper's test keeps sand at rest rigid whatever its slope (`src/sand/surface_rest.hpp`; `docs/findings/steep_surfaces_yield.md`)",
     {"sand"}, {"zhu_bridson", "mu_i"}, "sand has no rigid cells"},
    {"material", {"culmann_wedges_yield"}, false, "boolean", "-", "true (the validated model, with gravity along -z), false (the rest)",
     kAnyValue, "`zhu_bridson` and `mu_i` only: a rigid cell of dry cohesionless sand yields, even at rest, when the plane through it dipping at `friction_angle` toward a free surface daylights, since the sand above a plane steeper than phi slides (Culmann's wedge; `src/sand/culmann_wedges.hpp`; under `zhu_bridson` the plane dips at atan(sqrt(3/2) sin(phi)) where that is steeper, 31.5 degrees for phi = 30: the friction the flow itself resists a sliding block with, so that sand at rest is no weaker than flowing sand); a cell with cohesion (dry or from its saturation) yields when it lies in a block whose weight beats its plane's cohesion and friction, the test that gives Rankine's critical height (`src/sand/cohesive_wedges.hpp`; `docs/findings/culmann_wedges_yield.md`). With the wedges deciding what fails at rest, the yield test weighs a cell resting on a solid or packed sand with at least its own sand's weight (`own_weight_pressure`, `src/sand/surface_rest.hpp`), so that long slopes and cones below phi stand. Needs gravity along -z",
     {"sand"}, {"zhu_bridson", "mu_i"}, "sand has no rigid cells"},
    {"material", {"resting_grains_hold"}, false, "boolean", "-", "true (the validated model), false (the rest)",
     kAnyValue, "`zhu_bridson` and `mu_i` only: a loose cell (fewer than 4 sand particles, half of the 8 a cell is seeded with) whose sand has stayed slower than friction stops within a step, g dt tan(phi), for as long as a grain takes to fall one cell from rest, sqrt(2 dx / g), holds by its own weight: the yield test weighs the stress that stops it by its sand (its particles over 8) and Culmann's wedges do not fail it. Without it the loose grains on a slope's staircase fail the yield test, whose stopping stress is a full cell's, and creep down slopes 2 to 5 degrees under `friction_angle` (`src/sand/resting_grains.hpp`; `docs/findings/culmann_wedges_yield.md`)",
     {"sand"}, {"zhu_bridson", "mu_i"}, "sand has no rigid cells"},
    {"material", {"yield_surface"}, false, "string", "-", "`\"drucker_prager\"`",
     kAnyValue, "`\"drucker_prager\"` (the paper's cone: one strength for every direction of strain) or `\"mohr_coulomb\"` (Mohr-Coulomb's dependence on the intermediate principal stress: the same strength in plane strain and simple shear, up to 45% more in axisymmetric compression; `src/sand/sand_rheology.hpp`); `zhu_bridson` only",
     {"sand"}, {"zhu_bridson"}, ""},
    {"material", {"friction_substeps"}, false, "integer", "-", "8 (`transfer = \"apic\"`), 1 (`\"flip\"`, `\"rpic\"`)",
     Range{1.0, 64.0}, "`zhu_bridson` and `mu_i` only: the frictional stress is applied in this many substeps of the step, each from the strain rate the one before left. Applied once, its fixed size overshoots on grid-scale motions; PIC damps the chatter that follows, APIC keeps it, and APIC heaps spread flat (`docs/findings/friction_substeps.md`)",
     {"sand"}, {"zhu_bridson", "mu_i"}, ""},
    {"material", {"shear_modulus"}, false, "number", "Pa", "2e5",
     kPositive, "G of the elastic stress: a numerical stiffness (the elastic strain is stress / G) that sets the time step, dt <= 0.4 dx / sqrt(G / density); `elastic_plastic` only",
     {"sand"}, {"elastic_plastic"}, ""},
    {"material", {"friction_angle_dynamic"}, false, "number", "degrees", "max(33, friction_angle)",
     Range{0.0, 90.0, false, false}, "at least `friction_angle`; atan(mu_2), the friction at large inertial number; `mu_i` only",
     {"sand"}, {"mu_i"}, ""},
    {"material", {"i0"}, false, "number", "-", "0.3",
     kPositive, "I0, the inertial number half way from mu_s to mu_2; `mu_i` only",
     {"sand"}, {"mu_i"}, ""},
    {"material", {"grain_diameter"}, false, "number", "m", "5e-4",
     kPositive, "d in I = gamma_dot d / sqrt(p / rho_grain); `mu_i` only",
     {"sand"}, {"mu_i"}, ""},
    {"material", {"grain_density"}, false, "number", "kg/m^3", "2650",
     kPositive, "rho_grain (quartz); `mu_i` only",
     {"sand"}, {"mu_i"}, ""},
    {"material", {"porosity"}, false, "number", "-", "0",
     Range{0.0, 1.0, true, false}, "sand only; n, pore volume / bulk volume; 0 = the sand holds no water",
     {"sand"}, {}, ""},
    {"material", {"ideal_saturation"}, false, "number", "-", "0.4",
     Range{0.0, 1.0, false, false}, "S', where cohesion peaks and above which friction falls and viscosity grows",
     {"sand"}, {}, ""},
    {"material", {"c_wet"}, false, "number", "Pa", "0",
     kNonNegative, "cohesion at S'",
     {"sand"}, {}, ""},
    {"material", {"mud_viscosity"}, false, "number", "Pa s", "0",
     kNonNegative, "viscosity of soaked sand (S = 1)",
     {"sand"}, {}, ""},
    {"material", {"propagation_rate"}, false, "number", "m^2/s", "0",
     kNonNegative, "k_p, capillary diffusivity of the pore water",
     {"sand"}, {}, ""},
    {"material", {"conductivity"}, false, "number", "m/s", "0",
     kNonNegative, "K, saturated hydraulic conductivity: gravity drainage above S'",
     {"sand"}, {}, ""},
    {"material", {"pore_flow"}, false, "string", "-", "`\"diffusion\"`",
     kAnyValue, "`\"diffusion\"` (the seed papers' capillary diffusion and drainage: `propagation_rate`, `conductivity`) or `\"richards\"` (Richards' equation: Darcy's flux under the hydraulic head, van Genuchten-Mualem soil; ponds push, water rises from a water table and seeps out of banks; `src/wet/richards.hpp`)",
     {"sand"}, {}, ""},
    {"material", {"van_genuchten_alpha"}, false, "number", "1/m", "14.5",
     kPositive, "alpha of van Genuchten's retention curve, about 1 / the air-entry suction (Carsel & Parrish 1988's sand); `pore_flow = \"richards\"` only",
     {"sand"}, {}, ""},
    {"material", {"van_genuchten_n"}, false, "number", "-", "2.68",
     Range{1.0, 20.0, false, true}, "n of van Genuchten's curve (m = 1 - 1/n), larger for a narrower pore-size distribution; `pore_flow = \"richards\"` only",
     {"sand"}, {}, ""},
    {"material", {"residual_saturation"}, false, "number", "-", "0.1",
     Range{0.0, 1.0, true, false}, "S_r, the saturation the grains keep (theta_r / porosity; sand 0.045 / 0.43); `pore_flow = \"richards\"` only",
     {"sand"}, {}, ""},
    {"material", {"specific_storage"}, false, "number", "1/m", "1e-4",
     kPositive, "S_s, water a soaked pore takes per metre of head (compressibility); `pore_flow = \"richards\"` only",
     {"sand"}, {}, ""},
    {"material", {"pore_flow_interval"}, false, "number", "s", "0.05",
     kPositive, "time between the implicit pore-water solves, each over the time since the last (the pore water lags the flow by less than this; free water is absorbed every step); `pore_flow = \"richards\"` only",
     {"sand"}, {}, ""},
    {"material", {"soaked_friction"}, false, "string", "-", "`\"mud\"`",
     kAnyValue, "`\"mud\"` (the seed papers: friction fades above `ideal_saturation` and is gone when soaked) or `\"effective_stress\"` (the friction angle stays and acts on the pressure less the pore water's, from Richards' heads: sand below a water table keeps its friction, upward seepage takes it; `src/wet/effective_stress.hpp`); `pore_flow = \"richards\"` only for the second",
     {"sand"}, {}, ""},
    {"material", {"saturation"}, false, "number", "-", "0",
     kUnitInterval, "S of the particles the material's sources create",
     {"sand"}, {}, ""},
    {"source", {"material"}, false, "string", "-", "required",
     kAnyValue, "the `name` of a `[[material]]`",
     {}, {}, ""},
    {"source", {"shape"}, false, "string", "-", "required",
     kAnyValue, "`\"block\"`, `\"sphere\"`, `\"cylinder\"`, `\"mesh\"` or `\"heightfield\"`",
     {}, {}, ""},
    {"source", {"min", "max"}, false, "[x, y, z]", "m", "required for a block",
     kAnyValue, "`min < max` on every axis",
     {}, {}, ""},
    {"source", {"center"}, false, "[x, y, z]", "m", "required for a sphere or a cylinder",
     kAnyValue, "any; a cylinder's is the centre of its base",
     {}, {}, ""},
    {"source", {"radius"}, false, "number", "m", "required for a sphere or a cylinder",
     kPositive, "",
     {}, {}, ""},
    {"source", {"height"}, false, "number", "m", "required for a cylinder",
     kPositive, "the cylinder stands upright, from `center` up along z",
     {}, {}, ""},
    {"source", {"file"}, false, "string", "-", "required for a mesh",
     kAnyValue, "a Wavefront OBJ file; relative paths are relative to the case file's directory",
     {}, {}, ""},
    {"source", {"scale"}, false, "number", "-", "1",
     kPositive, "mesh only",
     {}, {}, ""},
    {"source", {"translate"}, false, "[x, y, z]", "m", "`[0, 0, 0]`",
     kAnyValue, "any; mesh only",
     {}, {}, ""},
    {"source", {"profile_x"}, false, "array of numbers", "m", "required for a heightfield",
     kAnyValue, "at least 2, increasing",
     {}, {}, ""},
    {"source", {"profile_height"}, false, "array of numbers", "m", "required for a heightfield",
     kNonNegative, "one per `profile_x`",
     {}, {}, ""},
    {"source", {"velocity"}, false, "[x, y, z]", "m/s", "`[0, 0, 0]`",
     kAnyValue, "any; the velocity of the particles the source creates",
     {}, {}, ""},
    {"source", {"emit_until"}, false, "number", "s", "0 (fills at the start only)",
     kPositive, "the source keeps pouring until this time (see below)",
     {}, {}, ""},
    {"source", {"saturation"}, false, "number", "-", "the material's `saturation`",
     kUnitInterval, "only for a sand with a `porosity` > 0",
     {}, {}, ""},
    {"source", {"rain_rate"}, false, "number", "m/s", "0 (not rain)",
     kPositive, "water only, a `block` with `emit_until`: makes the source rain (see below)",
     {}, {}, ""},
    {"collider", {"shape", "min", "max", "center", "radius", "height", "file", "scale", "translate", "profile_x", "profile_height"}, false, "", "", "",
     kAnyValue, "as for `[[source]]`",
     {}, {}, ""},
    {"collider", {"friction"}, false, "number", "-", "0",
     kNonNegative, "Coulomb coefficient mu",
     {}, {}, ""},
    {"checkpoint", {"interval_steps"}, false, "integer", "steps", "0 (off)",
     Range{0.0, kInf}, "a checkpoint after every this many steps (counted from step 0)",
     {}, {}, ""},
    {"checkpoint", {"interval_seconds"}, false, "number", "s (wall clock)", "0 (off)",
     kNonNegative, "a checkpoint when this long has passed since the last one (or the start), by rank 0's clock",
     {}, {}, ""},
    {"checkpoint", {"keep"}, false, "integer", "-", "3",
     Range{1.0, kMaxInt}, "the newest checkpoints kept, older ones are deleted",
     {}, {}, ""},
    {"checkpoint", {"directory"}, false, "string", "-", "`\"<output directory>/checkpoints\"`",
     kAnyValue, "non-empty; relative to the working directory. The default follows `--output`.",
     {}, {}, ""},
    {"catalyst", {"scripts"}, false, "array of strings", "-", "`[]` (off)",
     kAnyValue, "ParaView Catalyst V2 pipeline scripts (Python); relative paths are relative to the case file's directory; each must exist",
     {}, {}, ""},
    {"catalyst", {"interval_steps"}, false, "integer", "steps", "10",
     Range{1.0, kInf}, "the scripts run after every step whose number is a multiple of this",
     {}, {}, ""},
    {"catalyst", {"particle_stride"}, false, "integer", "-", "1",
     Range{1.0, kMaxParticleStride}, "that is, up to 2^40; the scripts see only the particles whose id this divides (as `[output] particle_stride`); at 1e8 particles a full copy for VTK takes about 100 bytes a particle",
     {}, {}, ""},
    {"catalyst", {"channels"}, false, "array of strings", "-", "`[\"input\", \"grid\", \"material_fraction\"]`",
     kAnyValue, "non-empty, each once: the channels offered to the scripts (`input`: the particles, `grid`: the pressure, `material_fraction`: the sand's and water's share of each cell); a channel left out is never copied for VTK (Catalyst takes every offered channel at its first call), and a script that reads one left out is an error at the first call",
     {}, {}, ""},
  };
  return schema;
}
// clang-format on

std::vector<std::string_view> keys_of(std::string_view section) {
  std::vector<std::string_view> keys;
  for (const CaseKey& row : case_schema())
    if (row.section == section) keys.insert(keys.end(), row.names.begin(), row.names.end());
  return keys;
}

std::vector<std::string_view> material_keys_of_kind(std::string_view kind) {
  std::vector<std::string_view> keys;
  for (const CaseKey& row : case_schema())
    if (row.section == "material" &&
        std::find(row.kinds.begin(), row.kinds.end(), kind) != row.kinds.end())
      keys.insert(keys.end(), row.names.begin(), row.names.end());
  return keys;
}

namespace {

std::string names_cell(const CaseKey& row) {
  std::string cell;
  for (std::string_view name : row.names) {
    if (!cell.empty()) cell += row.alias ? " (or " : ", ";
    cell += "`" + std::string(name) + "`";
  }
  return row.alias ? cell + ")" : cell;
}

// The README's Allowed column: the range, for each element of an array, then the rest.
std::string allowed_cell(const CaseKey& row) {
  if (row.range.any()) return std::string(row.allowed);
  const bool array = row.type.front() == '[' || row.type.substr(0, 8) == "array of";
  std::string cell = (array ? "each " : "") + row.range.describe();
  return row.allowed.empty() ? cell : cell + "; " + std::string(row.allowed);
}

const CaseKey* find_row(std::string_view section, std::string_view key) {
  for (const CaseKey& row : case_schema())
    if (row.section == section &&
        std::find(row.names.begin(), row.names.end(), key) != row.names.end())
      return &row;
  return nullptr;
}

}  // namespace

const Range& key_range(std::string_view section, std::string_view key) {
  const CaseKey* row = find_row(section, key);
  // A collider's shape keys are documented, and checked, as a source's.
  if (row && row->type.empty() && section == "collider") row = find_row("source", key);
  if (!row)
    throw std::logic_error("case schema: no key '" + std::string(key) + "' in [" +
                           std::string(section) + "]");
  return row->range;
}

std::string format_number(double value) {
  std::ostringstream out;
  out << std::setprecision(10) << value;
  return out.str();
}

std::string key_table_markdown(std::string_view section) {
  std::string table =
      "| Key | Type | Unit | Default | Allowed |\n|-----|------|------|---------|---------|\n";
  for (const CaseKey& row : case_schema()) {
    if (row.section != section) continue;
    table += "| " + names_cell(row);
    for (std::string_view cell : {row.type, row.unit, row.default_value})
      table += cell.empty() ? std::string(" |") : " | " + std::string(cell);
    table += " | " + allowed_cell(row);
    table += " |\n";
  }
  return table;
}

}  // namespace dunesim

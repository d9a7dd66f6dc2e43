// Case-file parsing: the shipped cases, defaults, derived values, every class of user error
// (checked by the substring a user would read) and the analytic shapes' distances.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "io/case_config.hpp"
#include "io/case_schema.hpp"
#include "io/triangle_mesh.hpp"
#include "src/driver/physics_budget.hpp"
#include "src/driver/run_driver.hpp"
#include "src/sand/sand_plasticity.hpp"

namespace dunesim {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string test_mesh(const std::string& name) {
  return std::string(DUNESIM_TEST_MESHES_DIR) + "/" + name;
}

CaseConfig parse_shipped(const std::string& name) {
  std::string path = std::string(DUNESIM_CASES_DIR) + "/" + name;
  std::string text = read_text(path);
  EXPECT_FALSE(text.empty()) << "cannot read " << path;
  return parse_case_text(text, path);
}

// The smallest valid case; error tests append or replace pieces of it.
const std::string kDomain = R"(
[domain]
size = [0.2, 0.2, 0.2]
cell_size = 0.05
)";
const std::string kTime = R"(
[time]
end = 0.5
)";
const std::string kWater = R"(
[[material]]
name = "water"
kind = "water"
)";
const std::string kSource = R"(
[[source]]
material = "water"
shape = "block"
min = [0.0, 0.0, 0.0]
max = [0.2, 0.2, 0.1]
)";
const std::string kMinimal = kDomain + kTime + kWater + kSource;

// Parses `text` expecting a CaseError whose message contains every one of `parts`.
void expect_error(const std::string& text, std::initializer_list<std::string> parts) {
  try {
    parse_case_text(text, "cases/test.toml");
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const CaseError& e) {
    std::string message = e.what();
    EXPECT_EQ(e.file(), "cases/test.toml");
    for (const std::string& part : parts)
      EXPECT_NE(message.find(part), std::string::npos)
          << "message: " << message << "\nlacks: " << part;
  }
}

TEST(CaseConfig, DamBreakCase) {
  CaseConfig cfg = parse_shipped("dam_break.toml");
  EXPECT_EQ(cfg.name, "dam_break");
  EXPECT_EQ(cfg.cells, (std::array<int, 3>{50, 25, 30}));
  EXPECT_DOUBLE_EQ(cfg.cell_size, 0.02);
  EXPECT_DOUBLE_EQ(cfg.gravity[2], -9.81);
  EXPECT_DOUBLE_EQ(cfg.end_time, 2.0);
  EXPECT_EQ(cfg.output.directory, "output/dam_break");
  EXPECT_DOUBLE_EQ(cfg.output.interval, 0.04);
  ASSERT_EQ(cfg.materials.size(), 1u);
  EXPECT_EQ(cfg.materials[0].kind, MaterialKind::Water);
  ASSERT_EQ(cfg.sources.size(), 1u);
  const ShapeSpec& column = cfg.sources[0].shape;
  EXPECT_EQ(column.kind, ShapeSpec::Kind::Block);
  EXPECT_DOUBLE_EQ(column.max[0], 0.4);
  EXPECT_DOUBLE_EQ(column.max[1], 0.5);
  EXPECT_DOUBLE_EQ(column.max[2], 0.35);
  EXPECT_TRUE(cfg.colliders.empty());
  EXPECT_NE(cfg.file.find("dam_break.toml"), std::string::npos);
  EXPECT_EQ(cfg.text, read_text(cfg.file));
}

TEST(CaseConfig, StillWaterCase) {
  CaseConfig cfg = parse_shipped("still_water.toml");
  EXPECT_EQ(cfg.name, "still_water");
  EXPECT_EQ(cfg.cells, (std::array<int, 3>{20, 20, 20}));
  EXPECT_DOUBLE_EQ(cfg.end_time, 1.0);
  EXPECT_TRUE(cfg.output.grid_fields);
  EXPECT_EQ(cfg.output.directory, "output/still_water");
  ASSERT_EQ(cfg.sources.size(), 1u);
  EXPECT_DOUBLE_EQ(cfg.sources[0].shape.max[2], 0.2);
}

TEST(CaseConfig, Defaults) {
  CaseConfig cfg = parse_case_text(kMinimal, "some/dir/tiny_tank.toml");
  EXPECT_EQ(cfg.file, "some/dir/tiny_tank.toml");
  EXPECT_EQ(cfg.text, kMinimal);
  EXPECT_EQ(cfg.name, "tiny_tank");  // the file's stem
  EXPECT_EQ(cfg.cells, (std::array<int, 3>{4, 4, 4}));
  EXPECT_EQ(cfg.gravity, (Vec3{0.0, 0.0, -9.81}));
  EXPECT_EQ(cfg.max_steps, 0);
  EXPECT_DOUBLE_EQ(cfg.cfl, 1.0);
  EXPECT_DOUBLE_EQ(cfg.max_dt, 0.01);
  EXPECT_DOUBLE_EQ(cfg.jitter, 1.0);
  EXPECT_EQ(cfg.seed, 1u);
  EXPECT_EQ(cfg.output.directory, "output/tiny_tank");
  EXPECT_DOUBLE_EQ(cfg.output.interval, 0.04);
  EXPECT_FALSE(cfg.output.grid_fields);
  EXPECT_DOUBLE_EQ(cfg.pressure.rtol, 1e-6);
  EXPECT_EQ(cfg.pressure.max_iterations, 500);
  EXPECT_EQ(cfg.pressure.petsc_options, "");
  EXPECT_DOUBLE_EQ(cfg.materials[0].density, 1000.0);
  EXPECT_DOUBLE_EQ(cfg.materials[0].flip_ratio, 0.95);
  EXPECT_EQ(cfg.sources[0].velocity, (Vec3{0.0, 0.0, 0.0}));
  EXPECT_EQ(cfg.sources[0].emit_until, 0.0);  // fills at the start only
}

TEST(CaseConfig, PouringSource) {
  CaseConfig cfg = parse_case_text(kMinimal + R"(
[[source]]
material = "water"
shape = "block"
min = [0.05, 0.05, 0.15]
max = [0.1, 0.1, 0.2]
velocity = [0, 0, -0.5]
emit_until = 2
)",
                                   "cases/test.toml");
  ASSERT_EQ(cfg.sources.size(), 2u);
  EXPECT_EQ(cfg.sources[0].emit_until, 0.0);
  EXPECT_DOUBLE_EQ(cfg.sources[1].emit_until, 2.0);
  EXPECT_EQ(cfg.sources[1].velocity, (Vec3{0.0, 0.0, -0.5}));
}

TEST(CaseConfig, SandPileIsPoured) {
  CaseConfig cfg = parse_shipped("sand_pile.toml");
  ASSERT_EQ(cfg.sources.size(), 1u);
  EXPECT_GT(cfg.sources[0].emit_until, 0.0);
  EXPECT_LT(cfg.sources[0].emit_until, cfg.end_time);  // it settles after the pour
  EXPECT_LT(cfg.sources[0].velocity[2], 0.0);
}

TEST(CaseConfigErrors, PouringSource) {
  expect_error(kMinimal + "[[source]]\nmaterial = \"water\"\nshape = \"block\"\n" +
                   "min = [0, 0, 0.1]\nmax = [0.1, 0.1, 0.2]\nemit_until = 0\n",
               {"source[1].emit_until", "expected a value > 0, got 0", "line"});
  expect_error(kMinimal + "[[source]]\nmaterial = \"water\"\nshape = \"block\"\n" +
                   "min = [0, 0, 0.1]\nmax = [0.1, 0.1, 0.2]\nemit_until = \"1 s\"\n",
               {"source[1].emit_until", "expected a number, got a string"});
  expect_error(kMinimal + "[[source]]\nmaterial = \"water\"\nshape = \"block\"\n" +
                   "min = [0, 0, 0.1]\nmax = [0.1, 0.1, 0.2]\nemit_untill = 1\n",
               {"source[1].emit_untill", "did you mean 'emit_until'?"});
  expect_error(kMinimal + "[[collider]]\nshape = \"sphere\"\ncenter = [0.1, 0.1, 0.1]\n" +
                   "radius = 0.05\nemit_until = 1\n",
               {"collider[0].emit_until", "unknown key"});
}

TEST(CaseConfig, SandDefaultsAndFullSchema) {
  std::string text = R"(
[case]
name = "everything"
[domain]
size = [1, 0.5, 0.25]      # integers are accepted where numbers are expected
cell_size = 0.025
[physics]
gravity = [0, 0, -1]
[time]
end = 3
max_steps = 1000
cfl = 2.5
max_dt = 0.005
[seeding]
jitter = 0.5
seed = 42
[output]
directory = "/scratch/run1"
interval = 0
grid_fields = true
[pressure]
rtol = 1e-8
max_iterations = 200
petsc_options = "-pc_type gamg"
[[material]]
name = "water"
kind = "water"
density = 998.2
flip_ratio = 0.9
[[material]]
name = "wet_sand"
kind = "sand"
density = 2000
flip_ratio = 0
friction_angle = 35.5
cohesion = 150
[[source]]
material = "water"
shape = "sphere"
center = [0.5, 0.25, 0.1]
radius = 0.05
velocity = [1, 0, 0]
[[source]]
material = "wet_sand"
shape = "block"
min = [-1, -1, -1]          # may reach outside the domain as long as it overlaps it
max = [0.2, 0.5, 0.1]
[[collider]]
shape = "sphere"
center = [0.8, 0.25, 0.0]
radius = 0.1
friction = 0.6
[[collider]]
shape = "block"
min = [0.4, 0.0, 0.0]
max = [0.45, 0.5, 0.05]
)";
  CaseConfig cfg = parse_case_text(text, "x.toml");
  EXPECT_EQ(cfg.name, "everything");
  EXPECT_EQ(cfg.cells, (std::array<int, 3>{40, 20, 10}));
  EXPECT_EQ(cfg.gravity, (Vec3{0.0, 0.0, -1.0}));
  EXPECT_DOUBLE_EQ(cfg.end_time, 3.0);
  EXPECT_EQ(cfg.max_steps, 1000);
  EXPECT_DOUBLE_EQ(cfg.cfl, 2.5);
  EXPECT_DOUBLE_EQ(cfg.max_dt, 0.005);
  EXPECT_DOUBLE_EQ(cfg.jitter, 0.5);
  EXPECT_EQ(cfg.seed, 42u);
  EXPECT_EQ(cfg.output.directory, "/scratch/run1");
  EXPECT_DOUBLE_EQ(cfg.output.interval, 0.0);
  EXPECT_TRUE(cfg.output.grid_fields);
  EXPECT_DOUBLE_EQ(cfg.pressure.rtol, 1e-8);
  EXPECT_EQ(cfg.pressure.max_iterations, 200);
  EXPECT_EQ(cfg.pressure.petsc_options, "-pc_type gamg");

  ASSERT_EQ(cfg.materials.size(), 2u);
  EXPECT_DOUBLE_EQ(cfg.materials[0].density, 998.2);
  EXPECT_DOUBLE_EQ(cfg.materials[0].flip_ratio, 0.9);
  const MaterialSpec& wet = cfg.materials[1];
  EXPECT_EQ(wet.kind, MaterialKind::Sand);
  EXPECT_DOUBLE_EQ(wet.density, 2000.0);
  EXPECT_DOUBLE_EQ(wet.flip_ratio, 0.0);
  EXPECT_DOUBLE_EQ(wet.friction_angle_deg, 35.5);
  EXPECT_DOUBLE_EQ(wet.cohesion, 150.0);

  ASSERT_EQ(cfg.sources.size(), 2u);
  EXPECT_EQ(cfg.sources[0].material, 0);
  EXPECT_EQ(cfg.sources[0].shape.kind, ShapeSpec::Kind::Sphere);
  EXPECT_DOUBLE_EQ(cfg.sources[0].shape.radius, 0.05);
  EXPECT_EQ(cfg.sources[0].velocity, (Vec3{1.0, 0.0, 0.0}));
  EXPECT_EQ(cfg.sources[1].material, 1);
  EXPECT_EQ(cfg.sources[1].shape.min, (Vec3{-1.0, -1.0, -1.0}));

  ASSERT_EQ(cfg.colliders.size(), 2u);
  EXPECT_DOUBLE_EQ(cfg.colliders[0].friction, 0.6);
  EXPECT_EQ(cfg.colliders[1].shape.kind, ShapeSpec::Kind::Block);
  EXPECT_DOUBLE_EQ(cfg.colliders[1].friction, 0.0);
}

TEST(CaseConfig, SandDefaults) {
  CaseConfig cfg = parse_case_text(kDomain + kTime + R"(
[[material]]
name = "sand"
kind = "sand"
[[source]]
material = "sand"
shape = "block"
min = [0, 0, 0]
max = [0.2, 0.2, 0.2]
)",
                                   "x.toml");
  const MaterialSpec& sand = cfg.materials[0];
  EXPECT_EQ(sand.kind, MaterialKind::Sand);
  EXPECT_DOUBLE_EQ(sand.density, 1600.0);
  EXPECT_DOUBLE_EQ(sand.flip_ratio, 0.05);
  EXPECT_DOUBLE_EQ(sand.friction_angle_deg, 30.0);
  EXPECT_DOUBLE_EQ(sand.cohesion, 0.0);
  EXPECT_DOUBLE_EQ(cfg.wall_friction, 0.0);
}

// Layered soils: each sand material keeps its own strength and density.
TEST(CaseConfig, SeveralSandMaterialsKeepTheirStrengths) {
  const CaseConfig cfg = parse_case_text(kMinimal + R"(
[[material]]
name = "dry"
kind = "sand"
friction_angle = 35
[[material]]
name = "damp"
kind = "sand"
friction_angle = 25
cohesion = 300
density = 1800
)",
                                         "cases/layers.toml");
  ASSERT_EQ(cfg.materials.size(), 3u);
  EXPECT_DOUBLE_EQ(cfg.materials[1].friction_angle_deg, 35);
  EXPECT_DOUBLE_EQ(cfg.materials[2].friction_angle_deg, 25);
  EXPECT_DOUBLE_EQ(cfg.materials[2].cohesion, 300);
  EXPECT_DOUBLE_EQ(cfg.materials[2].density, 1800);
}

// ... and its own porosity, where all of them hold water (a loose layer over a dense one).
TEST(CaseConfig, SeveralSandMaterialsKeepTheirPorosities) {
  const CaseConfig cfg = parse_case_text(kMinimal + R"(
[[material]]
name = "loose"
kind = "sand"
porosity = 0.45
conductivity = 1e-4
[[material]]
name = "dense"
kind = "sand"
porosity = 0.3
conductivity = 1e-4
saturation = 0.5
)",
                                         "cases/layers.toml");
  EXPECT_DOUBLE_EQ(cfg.materials[1].wet.porosity, 0.45);
  EXPECT_DOUBLE_EQ(cfg.materials[2].wet.porosity, 0.3);
  EXPECT_DOUBLE_EQ(cfg.materials[2].wet.initial_saturation, 0.5);
}

// They share one model and one flow of pore water: a second material that differs there is
// refused at the key that differs.
TEST(CaseConfigErrors, SecondSandMaterialWithAnotherModel) {
  const std::string dry = kMinimal + R"(
[[material]]
name = "dry"
kind = "sand"
[[material]]
name = "damp"
kind = "sand"
)";
  expect_error(dry + "transfer = \"flip\"\n",
               {"material[2].transfer'", "must be the same as in sand material \"dry\"",
                "differ only in density, friction_angle, cohesion, c_wet, porosity"});
  expect_error(dry + "porosity = 0.4\n",
               {"material[2].porosity'", "must be > 0 in every sand material or in none",
                "\"dry\" has no porosity"});
  expect_error(dry + "rheology = \"mu_i\"\n",
               {"material[2].rheology'", "need one rheology", "\"zhu_bridson\" or \"mu_i\""});
  const std::string plastic = kMinimal + R"(
[[material]]
name = "dry"
kind = "sand"
rheology = "rigid_plastic"
[[material]]
name = "damp"
kind = "sand"
rheology = "rigid_plastic"
)";
  expect_error(plastic, {"material[2].rheology'", "need one rheology"});
}

TEST(CaseConfigErrors, UnknownKeySuggestsClosest) {
  std::string text = kMinimal + R"(
[[material]]
name = "sand"
kind = "sand"
frction_angle = 33.0
)";
  expect_error(text, {"cases/test.toml", "material[1].frction_angle", "unknown key",
                      "did you mean 'friction_angle'?"});
  expect_error(kMinimal + "[output]\ninterval = 0.1\ngrid_field = true\n",
               {"output.grid_field", "did you mean 'grid_fields'?"});
  expect_error(kMinimal + "[domian]\n", {"key 'domian'", "did you mean 'domain'?"});
  expect_error(kMinimal + "[time.extra]\nx = 1\n", {"time.extra", "unknown key"});
}

TEST(CaseConfigErrors, UnknownKeyWithoutCloseMatchListsAllowedKeys) {
  expect_error(kMinimal + "[physics]\nviscosity = 1e-3\n",
               {"physics.viscosity", "allowed keys here are 'gravity'"});
}

TEST(CaseConfigErrors, WrongType) {
  std::string text = R"(
[domain]
size = [0.2, 0.2, 0.2]
cell_size = "0.05"
)" + kTime + kWater + kSource;
  expect_error(text, {"domain.cell_size", "expected a number, got a string", "line 4"});
  expect_error(kDomain + "[time]\nend = 1\nmax_steps = 2.5\n" + kWater + kSource,
               {"time.max_steps", "expected an integer, got a floating-point number"});
  expect_error(kMinimal + "[output]\ngrid_fields = 1\n",
               {"output.grid_fields", "expected a boolean"});
  expect_error(kMinimal + "[physics]\ngravity = [0, -9.81]\n",
               {"physics.gravity", "expected an array of 3 numbers"});
  expect_error(kMinimal + "[physics]\ngravity = [0, 0, \"down\"]\n",
               {"physics.gravity[2]", "expected a number, got a string"});
  expect_error(kMinimal + "[physics]\ngravity = [0, 0, nan]\n",
               {"physics.gravity[2]", "expected a finite number"});
  expect_error(kDomain + kTime + "[material]\nname = \"water\"\nkind = \"water\"\n" + kSource,
               {"key 'material'", "expected an array of tables ([[material]])"});
  expect_error("domain = 3\n" + kTime + kWater + kSource, {"key 'domain'", "expected a table"});
}

TEST(CaseConfigErrors, OutOfRange) {
  expect_error(kDomain + "[time]\nend = 1\ncfl = 8\n" + kWater + kSource,
               {"time.cfl", "expected a value in (0, 5], got 8"});
  expect_error(kDomain + "[time]\nend = 0\n" + kWater + kSource,
               {"time.end", "expected a value > 0, got 0"});
  expect_error(kDomain + "[time]\nend = 1\nmax_steps = -1\n" + kWater + kSource,
               {"time.max_steps", "got -1"});
  expect_error(kMinimal + "[seeding]\njitter = 1.5\n", {"seeding.jitter", "in [0, 1]"});
  expect_error(kMinimal + "[pressure]\nrtol = 1\n", {"pressure.rtol", "in (0, 1)"});
  expect_error(kMinimal + "[pressure]\nmax_iterations = 0\n", {"pressure.max_iterations"});
  expect_error(kMinimal + "[output]\ninterval = -0.1\n", {"output.interval", ">= 0"});
  expect_error(kMinimal + "[output]\ndirectory = \"\"\n", {"output.directory", "non-empty"});
  expect_error("[domain]\nsize = [0.2, -0.2, 0.2]\ncell_size = 0.05\n" + kTime + kWater + kSource,
               {"domain.size[1]", "expected a value > 0, got -0.2"});
  expect_error(kDomain + kTime + "[[material]]\nname = \"w\"\nkind = \"water\"\ndensity = -1\n" +
                   "[[source]]\nmaterial = \"w\"\nshape = \"sphere\"\ncenter = [0,0,0]\n" +
                   "radius = 0.1\n",
               {"material[0].density", "> 0"});
  expect_error(kDomain + kTime + kWater + "[[material]]\nname = \"s\"\nkind = \"sand\"\n" +
                   "friction_angle = 90\n" + kSource,
               {"material[1].friction_angle", "in (0, 90)"});
  expect_error(kMinimal + "[[collider]]\nshape = \"sphere\"\ncenter = [0.1, 0.1, 0.1]\n" +
                   "radius = 0.05\nfriction = -0.5\n",
               {"collider[0].friction", ">= 0"});
}

TEST(CaseConfigErrors, DomainCells) {
  expect_error("[domain]\nsize = [1.0, 0.5, 0.6]\ncell_size = 0.03\n" + kTime + kWater + kSource,
               {"domain.cell_size", "not a whole number of cells"});
  expect_error("[domain]\nsize = [1.0, 0.1, 0.6]\ncell_size = 0.05\n" + kTime + kWater + kSource,
               {"domain.cell_size", "2 cell(s) along y", "at least 4"});
  expect_error("[domain]\nsize = [1.0, 1.0, 1.0]\ncell_size = 1e-7\n" + kTime + kWater + kSource,
               {"domain.cell_size", "at most"});
}

TEST(CaseConfigErrors, TotalCells) {
  expect_error("[domain]\nsize = [1000.0, 1000.0, 1000.0]\ncell_size = 0.1\n" + kTime + kWater +
                   kSource,
               {"domain.cell_size", "10000 x 10000 x 10000 = 1e+12 cells; at most 1e+10"});
}

// Every number must be finite: an end time of inf would never be reached.
TEST(CaseConfigErrors, NonFiniteNumbers) {
  for (const char* value : {"inf", "-inf", "nan"})
    expect_error(kDomain + "[time]\nend = " + value + "\n" + kWater + kSource,
                 {"time.end", "expected a finite number"});
}

// A frame every interval up to the end time: a mistyped end or interval must not mean an
// endless schedule.
TEST(CaseConfigErrors, OutputFramesAreBounded) {
  expect_error(kDomain + "[time]\nend = 1e300\n" + kWater + kSource,
               {"output.interval", "time.end = 1e+300 s", "2.5e+301 frames", "at most 1000000"});
  expect_error(kMinimal + "[output]\ninterval = 1e-7\n", {"output.interval", "5000001 frames"});
  EXPECT_NO_THROW(parse_case_text(kMinimal + "[output]\ninterval = 1e-6\n", "x.toml"));
  EXPECT_NO_THROW(parse_case_text(kDomain + "[time]\nend = 1e300\n" + kWater + kSource +
                                      "[output]\ninterval = 0\n",
                                  "x.toml"));
}

// The name becomes the stem of the output files: a path in it would write elsewhere.
TEST(CaseConfigErrors, CaseNameIsAFileName) {
  for (const char* name : {"../../x", "a/b", "/tmp/x", ".", "..", "tank 1", "t\\u00e4nk"})
    expect_error(std::string("[case]\nname = \"") + name + "\"\n" + kMinimal,
                 {"case.name", "expected a file name", "letters, digits, '_', '-' and '.'"});
  expect_error("[case]\nname = \"" + std::string(201, 'a') + "\"\n" + kMinimal,
               {"case.name", "at most 200"});
  EXPECT_EQ(parse_case_text("[case]\nname = \"Tank-2.v1_a\"\n" + kMinimal, "x.toml").name,
            "Tank-2.v1_a");
}

TEST(CaseConfig, DefaultNameIsAPlainFileName) {
  EXPECT_EQ(parse_case_text(kMinimal, "dir/my tank (2).toml").name, "my_tank__2_");
  EXPECT_EQ(parse_case_text(kMinimal, "dir/..toml").name, "case");
  EXPECT_EQ(parse_case_text(kMinimal, "dir/" + std::string(300, 'b') + ".toml").name,
            std::string(200, 'b'));
}

TEST(CaseConfigErrors, MissingRequired) {
  expect_error("[domain]\nsize = [0.2, 0.2, 0.2]\n" + kTime + kWater + kSource,
               {"key 'domain.cell_size': required key is missing"});
  expect_error(kTime + kWater + kSource, {"domain.size", "required key is missing"});
  expect_error(kDomain + kWater + kSource, {"time.end", "required key is missing"});
  expect_error(kDomain + kTime + kSource, {"key 'material'", "at least one [[material]]"});
  expect_error(kDomain + kTime + kWater, {"key 'source'", "at least one [[source]]"});
  expect_error(kDomain + kTime + "[[material]]\nname = \"w\"\n" + kSource,
               {"material[0].kind", "required key is missing"});
  expect_error(kDomain + kTime + kWater +
                   "[[source]]\nmaterial = \"water\"\nshape = \"block\"\n" + "min = [0, 0, 0]\n",
               {"source[0].max", "required key is missing"});
  expect_error(kDomain + kTime + kWater +
                   "[[source]]\nmaterial = \"water\"\nshape = \"sphere\"\n" +
                   "center = [0, 0, 0]\n",
               {"source[0].radius", "required key is missing"});
}

TEST(CaseConfigErrors, BadMaterialReference) {
  expect_error(kDomain + kTime + kWater +
                   "[[source]]\nmaterial = \"sand\"\nshape = \"block\"\n"
                   "min = [0, 0, 0]\nmax = [0.1, 0.1, 0.1]\n",
               {"source[0].material", "no [[material]] named \"sand\"", "defined: \"water\""});
  expect_error(kDomain + kTime + kWater + kWater + kSource,
               {"material[1].name", "defined twice"});
  expect_error(kDomain + kTime + "[[material]]\nname = \"w\"\nkind = \"mud\"\n" + kSource,
               {"material[0].kind", "expected \"water\" or \"sand\", got \"mud\""});
}

TEST(CaseConfigErrors, SandKeyOnWater) {
  expect_error(kDomain + kTime + "[[material]]\nname = \"water\"\nkind = \"water\"\n" +
                   "friction_angle = 30\n" + kSource,
               {"material[0].friction_angle",
                "only used when kind = \"sand\", but this has kind = \"water\""});
  expect_error(kDomain + kTime + "[[material]]\nname = \"water\"\nkind = \"water\"\n" +
                   "cohesion = 10\n" + kSource,
               {"material[0].cohesion", "only used when kind = \"sand\""});
}

TEST(CaseConfigErrors, Shapes) {
  std::string head = kDomain + kTime + kWater + "[[source]]\nmaterial = \"water\"\n";
  expect_error(head + "shape = \"cone\"\n",
               {"source[0].shape",
                "expected \"block\" or \"sphere\" or \"cylinder\" or "
                "\"mesh\" or \"heightfield\", got \"cone\""});
  expect_error(head + "shape = \"block\"\nmin = [0, 0, 0]\nmax = [0.1, 0.1, 0.1]\nradius = 1\n",
               {"source[0].radius", "only used when shape = \"sphere\""});
  expect_error(head + "shape = \"sphere\"\ncenter = [0, 0, 0]\nradius = 0.1\nmin = [0, 0, 0]\n",
               {"source[0].min", "only used when shape = \"block\""});
  expect_error(head + "shape = \"block\"\nmin = [0, 0.1, 0]\nmax = [0.1, 0.1, 0.1]\n",
               {"source[0].max", "max > min on every axis", "max[1] = 0.1 <= min[1] = 0.1"});
  expect_error(head + "shape = \"block\"\nmin = [0, 0, 0.2]\nmax = [0.1, 0.1, 0.3]\n",
               {"key 'source[0]'", "outside the domain along z"});
  expect_error(head + "shape = \"sphere\"\ncenter = [0.5, 0.5, 0.5]\nradius = 0.1\n",
               {"key 'source[0]'", "sphere lies entirely outside the domain"});
  expect_error(head + "shape = \"sphere\"\ncenter = [0, 0, 0]\nradius = 0.1\nheight = 0.1\n",
               {"source[0].height",
                "only used when shape = \"cylinder\", but this has shape = \"sphere\""});
  expect_error(
      head + "shape = \"block\"\nmin = [0, 0, 0]\nmax = [0.1, 0.1, 0.1]\ncenter = [0, 0, 0]\n",
      {"source[0].center", "only used when shape = \"sphere\" or \"cylinder\""});
  expect_error(head + "shape = \"cylinder\"\ncenter = [0, 0, 0]\nradius = 0.1\n",
               {"source[0].height", "required key is missing"});
  expect_error(head + "shape = \"cylinder\"\ncenter = [0, 0, 0]\nradius = 0.1\nheight = -1\n",
               {"source[0].height", "expected a value > 0"});
  expect_error(head + "shape = \"cylinder\"\ncenter = [0.5, 0.1, 0]\nradius = 0.1\nheight = 1\n",
               {"key 'source[0]'", "cylinder lies entirely outside the domain"});
  expect_error(head + "shape = \"sphere\"\ncenter = [0.1, 0.1, 0.1]\nradius = 0\n",
               {"source[0].radius", "> 0"});
  expect_error(kMinimal + "[[collider]]\nshape = \"block\"\nmin = [-1, -1, -1]\n" +
                   "max = [-0.5, 0.1, 0.1]\n",
               {"key 'collider[0]'", "outside the domain along x"});
}

TEST(CaseConfig, MeshShapes) {
  // The case file is taken to lie in tests/meshes, so "cube.obj" is found next to it.
  std::string text = kDomain + kTime + kWater + R"(
[[source]]
material = "water"
shape = "mesh"
file = "cube.obj"
scale = 0.1
translate = [0.05, 0.05, 0.0]
velocity = [0, 0, -1]
[[collider]]
shape = "mesh"
file = "tetra.obj"
friction = 0.3
)";
  CaseConfig cfg = parse_case_text(text, test_mesh("scene.toml"));
  ASSERT_EQ(cfg.sources.size(), 1u);
  const ShapeSpec& cube = cfg.sources[0].shape;
  EXPECT_EQ(cube.kind, ShapeSpec::Kind::Mesh);
  EXPECT_EQ(cube.mesh_file, test_mesh("cube.obj"));
  EXPECT_DOUBLE_EQ(cube.scale, 0.1);
  EXPECT_EQ(cube.translate, (Vec3{0.05, 0.05, 0.0}));
  EXPECT_EQ(cfg.sources[0].velocity, (Vec3{0.0, 0.0, -1.0}));
  ASSERT_NE(cube.mesh, nullptr);
  EXPECT_DOUBLE_EQ(cube.mesh->spacing(), 0.025);  // half the cell size
  // The cube now spans [0.05, 0.15] x [0.05, 0.15] x [0, 0.1].
  auto [lo, hi] = cube.mesh->mesh().bounds();
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(lo[a], a < 2 ? 0.05 : 0.0, 1e-15);
    EXPECT_NEAR(hi[a], a < 2 ? 0.15 : 0.1, 1e-15);
  }
  EXPECT_TRUE(cube.contains({0.1, 0.1, 0.05}));
  EXPECT_FALSE(cube.contains({0.1, 0.1, 0.12}));
  EXPECT_FALSE(cube.contains({0.17, 0.1, 0.05}));
  EXPECT_NEAR(cube.signed_distance({0.1, 0.1, 0.09}), -0.01, 1e-6);  // linear next to the top
  EXPECT_NEAR(cube.signed_distance({0.1, 0.1, 0.13}), 0.03, 1e-6);

  ASSERT_EQ(cfg.colliders.size(), 1u);
  const ShapeSpec& tetra = cfg.colliders[0].shape;
  EXPECT_EQ(tetra.kind, ShapeSpec::Kind::Mesh);
  EXPECT_DOUBLE_EQ(tetra.scale, 1.0);
  EXPECT_EQ(tetra.translate, (Vec3{0.0, 0.0, 0.0}));
  EXPECT_DOUBLE_EQ(cfg.colliders[0].friction, 0.3);
  EXPECT_TRUE(tetra.contains({0.1, 0.1, 0.1}));
  EXPECT_LT(tetra.signed_distance({0.1, 0.1, 0.1}), 0.0);
  EXPECT_GT(tetra.signed_distance({0.5, 0.5, 0.5}), 0.0);

  // An absolute path is taken as it is.
  std::string absolute = kDomain + kTime + kWater + "[[source]]\nmaterial = \"water\"\n" +
                         "shape = \"mesh\"\nfile = \"" + test_mesh("tetra.obj") + "\"\n";
  EXPECT_EQ(parse_case_text(absolute, "elsewhere/x.toml").sources[0].shape.mesh_file,
            test_mesh("tetra.obj"));
}

// Every case shipped in cases/ parses and stays within the physics budget, as `dunesim
// check` would say (the bunny cases when their mesh has been made).
TEST(CaseConfig, EveryShippedCaseChecks) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(DUNESIM_CASES_DIR)) {
    if (entry.path().extension() != ".toml") continue;
    const std::string name = entry.path().filename().string();
    if (name.find("bunny") != std::string::npos &&
        !std::filesystem::exists(std::string(DUNESIM_CASES_DIR) + "/meshes/bunny.obj"))
      continue;
    SCOPED_TRACE(name);
    EXPECT_NO_THROW(check_physics_budget(parse_shipped(name)));
    ++checked;
  }
  EXPECT_GE(checked, 17);
}

TEST(CaseConfig, BunnyCases) {
  if (!std::filesystem::exists(std::string(DUNESIM_CASES_DIR) + "/meshes/bunny.obj"))
    GTEST_SKIP() << "cases/meshes/bunny.obj is missing; cases/meshes/fetch_bunny.sh makes it";
  for (const char* name : {"sand_bunny.toml", "water_bunny.toml"}) {
    SCOPED_TRACE(name);
    CaseConfig cfg = parse_shipped(name);
    EXPECT_EQ(cfg.cells, (std::array<int, 3>{60, 50, 50}));
    ASSERT_EQ(cfg.sources.size(), 1u);
    EXPECT_EQ(cfg.materials[0].kind,
              cfg.name == "sand_bunny" ? MaterialKind::Sand : MaterialKind::Water);
    const ShapeSpec& bunny = cfg.sources[0].shape;
    ASSERT_EQ(bunny.kind, ShapeSpec::Kind::Mesh);
    EXPECT_NE(bunny.mesh_file.find("meshes/bunny.obj"), std::string::npos);
    // The whole bunny is inside the domain, above the floor.
    auto [lo, hi] = bunny.mesh->mesh().bounds();
    for (int a = 0; a < 3; ++a) {
      EXPECT_GT(lo[a], 0.0);
      EXPECT_LT(hi[a], cfg.domain_size[a]);
    }
    EXPECT_NEAR(hi[0] - lo[0], 0.6, 1e-6);
    EXPECT_GT(lo[2], 0.05);
  }
}

TEST(CaseConfigErrors, MeshShapes) {
  // Relative mesh paths are resolved against "cases/", the directory of cases/test.toml.
  const std::string head =
      kDomain + kTime + kWater + "[[source]]\nmaterial = \"water\"\nshape = \"mesh\"\n";
  const std::string cube = "file = \"" + test_mesh("cube.obj") + "\"\n";
  expect_error(head + "file = \"no_such_mesh.obj\"\n",
               {"source[0].file", "mesh cases/no_such_mesh.obj: cannot open",
                "No such file or directory", "(line 15)"});
  expect_error(head + "file = \"" + test_mesh("bad_vertex.obj") + "\"\n",
               {"source[0].file", "bad_vertex.obj: line 4: expected 3 finite numbers after 'v'",
                "got \"v 0 one 0\"", "(line 15)"});
  expect_error(head + "file = \"" + test_mesh("square.obj") + "\"\n",
               {"source[0].file", "encloses no volume"});
  expect_error(head + cube + "scael = 2\n", {"source[0].scael", "did you mean 'scale'?"});
  expect_error(head + "fille = \"cube.obj\"\n", {"source[0].fille", "did you mean 'file'?"});
  expect_error(head + "scale = 2\n", {"source[0].file", "required key is missing"});
  expect_error(head + "file = \"\"\n", {"source[0].file", "non-empty"});
  expect_error(head + cube + "scale = 0\n", {"source[0].scale", "expected a value > 0, got 0"});
  expect_error(head + cube + "scale = \"big\"\n", {"source[0].scale", "expected a number"});
  expect_error(head + cube + "translate = [1, 2]\n",
               {"source[0].translate", "expected an array of 3 numbers"});
  expect_error(head + cube + "translate = [0, 0, 5]\n",
               {"key 'source[0]'", "the mesh lies outside the domain along z",
                "it spans [5, 6], which does not overlap [0, 0.2]"});
  expect_error(head + cube + "scale = 0.1\ntranslate = [-0.2, 0, 0]\n",
               {"mesh lies outside the domain along x"});
  expect_error(
      head + cube + "radius = 1\n",
      {"source[0].radius",
       "only used when shape = \"sphere\" or \"cylinder\", but this has shape = \"mesh\""});
  expect_error(head + cube + "min = [0, 0, 0]\n",
               {"source[0].min",
                "only used when shape = \"block\", but this has shape = \"mesh\""});
  expect_error(kDomain + kTime + kWater + kSource + "scale = 2\n",
               {"source[0].scale",
                "only used when shape = \"mesh\", but this has shape = \"block\""});
  expect_error(kMinimal + "[[collider]]\nshape = \"sphere\"\ncenter = [0.1, 0.1, 0.1]\n" +
                   "radius = 0.05\nfile = \"cube.obj\"\n",
               {"collider[0].file", "only used when shape = \"mesh\""});
  expect_error(kMinimal + "[[collider]]\nshape = \"mesh\"\n" + cube + "translation = [0, 0, 0]\n",
               {"collider[0].translation", "did you mean 'translate'?"});
}

TEST(CaseConfigErrors, SyntaxErrorNamesLine) {
  std::string text = "[domain]\nsize = [1.0, 0.5, 0.6]\ncell_size = = 0.02\n";
  expect_error(text, {"cases/test.toml", "TOML syntax error", "line 3"});
  expect_error("[domain\n", {"TOML syntax error", "line 1"});
}

TEST(ShapeSpec, BlockDistances) {
  ShapeSpec block;
  block.kind = ShapeSpec::Kind::Block;
  block.min = {0.0, 0.0, 0.0};
  block.max = {1.0, 2.0, 3.0};
  // Inside: minus the distance to the nearest face.
  EXPECT_DOUBLE_EQ(block.signed_distance({0.5, 1.0, 1.5}), -0.5);
  EXPECT_DOUBLE_EQ(block.signed_distance({0.9, 1.0, 1.5}), -0.1);
  EXPECT_DOUBLE_EQ(block.signed_distance({0.5, 1.0, 0.25}), -0.25);
  // On a face.
  EXPECT_DOUBLE_EQ(block.signed_distance({1.0, 1.0, 1.0}), 0.0);
  // Outside a face, an edge and a corner: exact Euclidean distance.
  EXPECT_DOUBLE_EQ(block.signed_distance({1.5, 1.0, 1.0}), 0.5);
  EXPECT_DOUBLE_EQ(block.signed_distance({-3.0, -4.0, 1.0}), 5.0);
  EXPECT_DOUBLE_EQ(block.signed_distance({2.0, 4.0, 5.0}), 3.0);
  EXPECT_TRUE(block.contains({0.5, 1.0, 1.5}));
  EXPECT_TRUE(block.contains({0.0, 2.0, 3.0}));
  EXPECT_FALSE(block.contains({0.5, 2.1, 1.5}));
  EXPECT_FALSE(block.contains({-0.01, 1.0, 1.0}));
}

TEST(ShapeSpec, CylinderDistances) {
  ShapeSpec cylinder;
  cylinder.kind = ShapeSpec::Kind::Cylinder;
  cylinder.center = {1.0, 1.0, 0.5};  // base
  cylinder.radius = 0.5;
  cylinder.height = 2.0;  // top at z = 2.5
  // Inside: minus the distance to the nearer of the side and the caps.
  EXPECT_DOUBLE_EQ(cylinder.signed_distance({1.0, 1.0, 1.5}), -0.5);
  EXPECT_DOUBLE_EQ(cylinder.signed_distance({1.0, 1.0, 0.7}), -0.2);
  EXPECT_DOUBLE_EQ(cylinder.signed_distance({1.3, 1.0, 1.5}), -0.2);
  // Outside the side, beyond a cap, and past the rim.
  EXPECT_DOUBLE_EQ(cylinder.signed_distance({4.0, 5.0, 1.5}), 4.5);
  EXPECT_DOUBLE_EQ(cylinder.signed_distance({1.0, 1.2, 3.0}), 0.5);
  EXPECT_DOUBLE_EQ(cylinder.signed_distance({1.0, 1.8, 0.1}), 0.5);  // (0.3, 0.4) from the rim
  EXPECT_TRUE(cylinder.contains({1.3, 1.3, 2.5}));
  EXPECT_FALSE(cylinder.contains({1.4, 1.4, 1.0}));
  EXPECT_FALSE(cylinder.contains({1.0, 1.0, 0.49}));
}

TEST(CaseConfig, CylinderAndFrictionlessWalls) {
  CaseConfig cfg =
      parse_case_text(kDomain + "wall_friction = 0.6\nfrictionless_walls = [\"x-\", \"y-\"]\n" +
                          kTime + kWater +
                          "[[source]]\nmaterial = \"water\"\nshape = \"cylinder\"\n"
                          "center = [0, 0, 0]\nradius = 0.1\nheight = 0.15\n",
                      "quarter.toml");
  const ShapeSpec& column = cfg.sources[0].shape;
  ASSERT_EQ(column.kind, ShapeSpec::Kind::Cylinder);
  EXPECT_DOUBLE_EQ(column.radius, 0.1);
  EXPECT_DOUBLE_EQ(column.height, 0.15);
  EXPECT_EQ(cfg.frictionless_wall, (std::array<bool, 6>{true, false, true, false, false, false}));
  EXPECT_EQ(wall_index("z+"), 5);
}

TEST(CaseConfig, SandParticleWork) {
  CaseConfig cfg =
      parse_case_text(kMinimal + "[load_balance]\nsand_particle_work = 1.4\n", "w.toml");
  EXPECT_DOUBLE_EQ(cfg.load_balance.sand_particle_work, 1.4);
  expect_error(kMinimal + "[load_balance]\nsand_particle_work = 0\n",
               {"load_balance.sand_particle_work", "expected a value > 0"});
}

TEST(CaseConfigErrors, FrictionlessWalls) {
  const std::string tail = kTime + kWater + kSource;
  expect_error(kDomain + "frictionless_walls = [\"x-\", \"floor\"]\n" + tail,
               {"domain.frictionless_walls[1]", "expected one of \"x-\", \"x+\"", "\"floor\""});
  expect_error(kDomain + "frictionless_walls = [\"y+\", \"y+\"]\n" + tail,
               {"domain.frictionless_walls[1]", "listed twice"});
  expect_error(kDomain + "frictionless_walls = \"x-\"\n" + tail,
               {"domain.frictionless_walls", "expected an array of strings"});
}

TEST(ShapeSpec, SphereDistances) {
  ShapeSpec sphere;
  sphere.kind = ShapeSpec::Kind::Sphere;
  sphere.center = {1.0, 1.0, 1.0};
  sphere.radius = 0.5;
  EXPECT_DOUBLE_EQ(sphere.signed_distance({1.0, 1.0, 1.0}), -0.5);
  EXPECT_DOUBLE_EQ(sphere.signed_distance({1.0, 1.2, 1.0}), -0.3);
  EXPECT_DOUBLE_EQ(sphere.signed_distance({1.5, 1.0, 1.0}), 0.0);
  EXPECT_DOUBLE_EQ(sphere.signed_distance({4.0, 5.0, 1.0}), 4.5);
  EXPECT_NEAR(sphere.signed_distance({2.0, 2.0, 2.0}), std::sqrt(3.0) - 0.5, 1e-15);
  EXPECT_TRUE(sphere.contains({1.3, 1.3, 1.0}));
  EXPECT_FALSE(sphere.contains({1.4, 1.4, 1.0}));
}

}  // namespace
}  // namespace dunesim

namespace dunesim {
namespace {

TEST(ShapeSpec, HeightfieldOfTheShippedDune) {
  CaseConfig cfg = parse_shipped("dune.toml");
  const ShapeSpec& dune = cfg.sources[0].shape;
  ASSERT_EQ(dune.kind, ShapeSpec::Kind::Heightfield);
  EXPECT_TRUE(dune.contains({1.5, 0.2, 0.29}));   // just under the crest
  EXPECT_FALSE(dune.contains({1.5, 0.2, 0.31}));  // just over it
  // On the slip face: h(1.7) = 0.3 (1.8575 - 1.7) / 0.3575 = 0.1322 m.
  EXPECT_NEAR(dune.signed_distance({1.7, 0.4, 0.1}), 0.1 - 0.3 * 0.1575 / 0.3575, 1e-12);
  EXPECT_FALSE(dune.contains({1.95, 0.2, 0.0}));  // beyond the foot
}

// Seeding skips the cells outside a source's bounding box, so no point a shape contains
// may lie outside it: checked on a lattice around each kind of shape.
TEST(ShapeSpec, BoundingBoxHoldsEveryPointTheShapeContains) {
  std::vector<ShapeSpec> shapes(4);
  shapes[0].kind = ShapeSpec::Kind::Block;
  shapes[0].min = {0.1, 0.12, 0.05}, shapes[0].max = {0.25, 0.2, 0.3};
  shapes[1].kind = ShapeSpec::Kind::Sphere;
  shapes[1].center = {0.3, 0.2, 0.25}, shapes[1].radius = 0.1;
  shapes[2].kind = ShapeSpec::Kind::Cylinder;
  shapes[2].center = {0.2, 0.25, 0.05}, shapes[2].radius = 0.12, shapes[2].height = 0.2;
  shapes[3] = parse_case_text(kDomain + kTime + kWater + R"(
[[source]]
material = "water"
shape = "mesh"
file = "tetra.obj"
scale = 0.15
translate = [0.02, 0.02, 0.02]
)",
                              test_mesh("scene.toml"))
                  .sources[0]
                  .shape;
  shapes.push_back(parse_shipped("dune.toml").sources[0].shape);
  for (const ShapeSpec& shape : shapes) {
    const auto [lo, hi] = shape.bounding_box();
    int inside = 0;
    for (int k = 0; k < 40; ++k)
      for (int j = 0; j < 40; ++j)
        for (int i = 0; i < 80; ++i) {
          const Vec3 p{-0.05 + 0.0131 * i, -0.05 + 0.0131 * j, -0.05 + 0.0131 * k};
          if (!shape.contains(p)) continue;
          ++inside;
          for (int a = 0; a < 3; ++a) {
            ASSERT_GE(p[a], lo[a]) << "shape kind " << int(shape.kind) << " axis " << a;
            ASSERT_LE(p[a], hi[a]) << "shape kind " << int(shape.kind) << " axis " << a;
          }
        }
    EXPECT_GT(inside, 10) << "shape kind " << int(shape.kind);
  }
}

TEST(CaseConfigErrors, HeightfieldNeedsIncreasingX) {
  expect_error(kDomain + kTime + kWater + R"(
[[source]]
material = "water"
shape = "heightfield"
profile_x = [0.1, 0.3, 0.2]
profile_height = [0.0, 0.1, 0.0]
)",
               {"source[0].profile_x'", "expected increasing x, got 0.2 after 0.3"});
}

}  // namespace

// The sand's rheology: Zhu & Bridson unless it says mu_i, elastic_plastic or rigid_plastic;
// each one's parameters are read only with it, and mu(I)'s dynamic angle cannot be below the
// static one. Zhu & Bridson's defaults to the validated model (APIC, rigid cells' own
// velocity, Culmann's wedges), elastic-plastic sand to FLIP, the others to mostly PIC.
TEST(CaseConfig, SandRheology) {
  const std::string sand_source = R"(
[[source]]
material = "sand"
shape = "block"
min = [0, 0, 0]
max = [0.2, 0.2, 0.2]
)";
  const std::string sand = "[[material]]\nname = \"sand\"\nkind = \"sand\"\n";
  CaseConfig plain = parse_case_text(kDomain + kTime + sand + sand_source, "x.toml");
  EXPECT_EQ(plain.materials[0].rheology.kind, SandRheology::Kind::ZhuBridson);
  EXPECT_TRUE(plain.materials[0].rheology.surface_static_friction);
  CaseConfig paper =
      parse_case_text(kDomain + kTime + sand + "surface_static_friction = false\n" + sand_source,
                      "x.toml");
  EXPECT_FALSE(paper.materials[0].rheology.surface_static_friction);
  CaseConfig mu_i = parse_case_text(
      kDomain + kTime + sand +
          "rheology = \"mu_i\"\nfriction_angle = 32\nfriction_angle_dynamic = 40\n"
          "i0 = 0.28\ngrain_diameter = 3e-4\ngrain_density = 2600\n" +
          sand_source,
      "x.toml");
  const SandRheology& r = mu_i.materials[0].rheology;
  EXPECT_EQ(r.kind, SandRheology::Kind::MuOfI);
  EXPECT_DOUBLE_EQ(r.dynamic_friction_angle_deg, 40);
  EXPECT_DOUBLE_EQ(r.inertial_number_i0, 0.28);
  EXPECT_DOUBLE_EQ(r.grain_diameter, 3e-4);
  EXPECT_DOUBLE_EQ(r.grain_density, 2600);
  EXPECT_DOUBLE_EQ(mu_i.materials[0].flip_ratio, 0.05);
  CaseConfig elastic =
      parse_case_text(kDomain + kTime + sand +
                          "rheology = \"elastic_plastic\"\nshear_modulus = 1e6\n" + sand_source,
                      "x.toml");
  EXPECT_EQ(elastic.materials[0].rheology.kind, SandRheology::Kind::ElasticPlastic);
  EXPECT_DOUBLE_EQ(elastic.materials[0].rheology.shear_modulus, 1e6);
  EXPECT_DOUBLE_EQ(elastic.materials[0].flip_ratio, 0.95);
  EXPECT_FALSE(elastic.materials[0].rheology.surface_static_friction);
  CaseConfig rigid_plastic =
      parse_case_text(kDomain + kTime + sand + "rheology = \"rigid_plastic\"\n" + sand_source,
                      "x.toml");
  EXPECT_EQ(rigid_plastic.materials[0].rheology.kind, SandRheology::Kind::RigidPlastic);
  EXPECT_DOUBLE_EQ(rigid_plastic.materials[0].flip_ratio, 0.05);
  EXPECT_FALSE(rigid_plastic.materials[0].rheology.surface_static_friction);
  // The friction's substeps: once a step under PIC/FLIP and RPIC, 8 under APIC (the
  // validated model's), or what the case says.
  EXPECT_EQ(friction_substeps(plain.materials[0]), 8);
  EXPECT_EQ(friction_substeps(mu_i.materials[0]), 1);
  CaseConfig apic =
      parse_case_text(kDomain + kTime + sand + "transfer = \"apic\"\n" + sand_source, "x.toml");
  EXPECT_EQ(friction_substeps(apic.materials[0]), 8);
  CaseConfig rpic =
      parse_case_text(kDomain + kTime + sand + "transfer = \"rpic\"\n" + sand_source, "x.toml");
  EXPECT_EQ(friction_substeps(rpic.materials[0]), 1);
  CaseConfig chosen =
      parse_case_text(kDomain + kTime + sand + "transfer = \"apic\"\nfriction_substeps = 3\n" +
                          sand_source,
                      "x.toml");
  EXPECT_EQ(friction_substeps(chosen.materials[0]), 3);
  // The yield surface's shape: Drucker-Prager's unless the case asks for Mohr-Coulomb's.
  EXPECT_EQ(plain.materials[0].rheology.yield_surface, SandRheology::YieldSurface::DruckerPrager);
  CaseConfig mohr_coulomb =
      parse_case_text(kDomain + kTime + sand + "yield_surface = \"mohr_coulomb\"\n" + sand_source,
                      "x.toml");
  EXPECT_EQ(mohr_coulomb.materials[0].rheology.yield_surface,
            SandRheology::YieldSurface::MohrCoulomb);
  // Rigid cells' particles: their cluster's motion in the validated model, interpolated like
  // every other particle in the others or when the case says so.
  EXPECT_TRUE(plain.materials[0].rheology.rigid_cells_own_velocity);
  EXPECT_FALSE(mu_i.materials[0].rheology.rigid_cells_own_velocity);
  // The sand's rheology with one key line added to the default material.
  auto rheology_with = [&](const std::string& key_line) {
    return parse_case_text(kDomain + kTime + sand + key_line + sand_source, "x.toml")
        .materials[0]
        .rheology;
  };
  EXPECT_FALSE(
      rheology_with("rigid_cell_velocity = \"interpolated\"\n").rigid_cells_own_velocity);
  EXPECT_FALSE(plain.materials[0].rheology.steep_surface_yields);
  EXPECT_TRUE(rheology_with("steep_surface_yields = true\n").steep_surface_yields);
  EXPECT_TRUE(plain.materials[0].rheology.culmann_wedges_yield);
  EXPECT_FALSE(mu_i.materials[0].rheology.culmann_wedges_yield);
  EXPECT_FALSE(rheology_with("culmann_wedges_yield = false\n").culmann_wedges_yield);
  EXPECT_TRUE(plain.materials[0].rheology.resting_grains_hold);
  EXPECT_FALSE(mu_i.materials[0].rheology.resting_grains_hold);
  EXPECT_FALSE(rheology_with("resting_grains_hold = false\n").resting_grains_hold);
  // Tilted gravity: the validated model leaves Culmann's test, which reads columns along z,
  // out (asking for it is refused; CaseConfigErrors.SandRheology).
  CaseConfig tilted = parse_case_text(kDomain + kTime + "[physics]\ngravity = [5.6, 0, -8.0]\n" +
                                          sand + sand_source,
                                      "x.toml");
  EXPECT_FALSE(tilted.materials[0].rheology.culmann_wedges_yield);
  EXPECT_EQ(tilted.materials[0].transfer, Transfer::Apic);
}

// model = "zhu_bridson_2005" gives the paper's sand: 95% PIC, rigid cells interpolated,
// no Culmann's wedges; any of them can still be set on its own.
TEST(CaseConfig, ZhuBridsonModel) {
  const std::string sand_source =
      "[[source]]\nmaterial = \"sand\"\nshape = \"block\"\nmin = [0, 0, 0]\nmax = [0.2, 0.2, "
      "0.2]\n";
  const std::string sand = kDomain + kTime + "[[material]]\nname = \"sand\"\nkind = \"sand\"\n";
  const MaterialSpec paper =
      parse_case_text(sand + "model = \"zhu_bridson_2005\"\n" + sand_source, "x.toml")
          .materials[0];
  EXPECT_EQ(paper.transfer, Transfer::Flip);
  EXPECT_DOUBLE_EQ(paper.flip_ratio, 0.05);
  EXPECT_EQ(friction_substeps(paper), 1);
  EXPECT_FALSE(paper.rheology.rigid_cells_own_velocity);
  EXPECT_FALSE(paper.rheology.culmann_wedges_yield);
  EXPECT_FALSE(paper.rheology.resting_grains_hold);
  EXPECT_EQ(paper.rheology.yield_surface, SandRheology::YieldSurface::DruckerPrager);
  const MaterialSpec validated =
      parse_case_text(sand + "model = \"validated\"\n" + sand_source, "x.toml").materials[0];
  EXPECT_EQ(validated.transfer, Transfer::Apic);
  EXPECT_TRUE(validated.rheology.rigid_cells_own_velocity);
  EXPECT_TRUE(validated.rheology.culmann_wedges_yield);
  EXPECT_TRUE(validated.rheology.resting_grains_hold);
  const MaterialSpec paper_apic =
      parse_case_text(sand + "model = \"zhu_bridson_2005\"\ntransfer = \"apic\"\n" + sand_source,
                      "x.toml")
          .materials[0];
  EXPECT_EQ(paper_apic.transfer, Transfer::Apic);
  EXPECT_FALSE(paper_apic.rheology.culmann_wedges_yield);
  // A flip_ratio alone asks for PIC/FLIP in either model.
  const MaterialSpec half_flip =
      parse_case_text(sand + "flip_ratio = 0.5\n" + sand_source, "x.toml").materials[0];
  EXPECT_EQ(half_flip.transfer, Transfer::Flip);
  EXPECT_DOUBLE_EQ(half_flip.flip_ratio, 0.5);
  expect_error(sand + "model = \"zhu_bridson\"\n" + sand_source,
               {"material[0].model", "\"validated\" or \"zhu_bridson_2005\"",
                "got \"zhu_bridson\""});
  expect_error(sand + "rheology = \"mu_i\"\nmodel = \"validated\"\n" + sand_source,
               {"material[0].model", "rheology = \"zhu_bridson\" only"});
  expect_error(kMinimal +
                   "[[material]]\nname = \"w2\"\nkind = \"water\"\nmodel = \"validated\"\n",
               {"model"});
}

TEST(CaseConfigErrors, SandRheology) {
  const std::string sand_source =
      "[[source]]\nmaterial = \"sand\"\nshape = \"block\"\nmin = [0, 0, 0]\nmax = [0.2, 0.2, "
      "0.2]\n";
  const std::string sand = kDomain + kTime + "[[material]]\nname = \"sand\"\nkind = \"sand\"\n";
  expect_error(sand + "rheology = \"bingham\"\n" + sand_source,
               {"material[0].rheology",
                "\"zhu_bridson\" or \"mu_i\" or \"elastic_plastic\" or \"rigid_plastic\""});
  expect_error(sand + "shear_modulus = 1e5\n" + sand_source,
               {"material[0].shear_modulus", "rheology = \"elastic_plastic\" only"});
  expect_error(sand + "rheology = \"elastic_plastic\"\nshear_modulus = -3\n" + sand_source,
               {"material[0].shear_modulus", "> 0"});
  expect_error(sand + "i0 = 0.3\n" + sand_source, {"material[0].i0", "rheology = \"mu_i\" only"});
  expect_error(sand + "rheology = \"elastic_plastic\"\nsurface_static_friction = true\n" +
                   sand_source,
               {"material[0].surface_static_friction", "\"zhu_bridson\" or \"mu_i\" only"});
  expect_error(sand + "rheology = \"rigid_plastic\"\nsurface_static_friction = false\n" +
                   sand_source,
               {"material[0].surface_static_friction", "rigid_plastic sand carries"});
  expect_error(sand + "rigid_cell_velocity = \"rigid\"\n" + sand_source,
               {"material[0].rigid_cell_velocity", "\"interpolated\" or \"own_cell\""});
  expect_error(sand + "rheology = \"rigid_plastic\"\nrigid_cell_velocity = \"own_cell\"\n" +
                   sand_source,
               {"material[0].rigid_cell_velocity", "rigid_plastic sand has no rigid cells"});
  expect_error(sand + "rheology = \"elastic_plastic\"\nsteep_surface_yields = true\n" +
                   sand_source,
               {"material[0].steep_surface_yields", "elastic_plastic sand has no rigid cells"});
  expect_error(sand + "rheology = \"rigid_plastic\"\nculmann_wedges_yield = true\n" + sand_source,
               {"material[0].culmann_wedges_yield", "rigid_plastic sand has no rigid cells"});
  expect_error(sand + "rheology = \"elastic_plastic\"\nresting_grains_hold = true\n" +
                   sand_source,
               {"material[0].resting_grains_hold", "elastic_plastic sand has no rigid cells"});
  expect_error(sand + "resting_grains_hold = 1\n" + sand_source,
               {"material[0].resting_grains_hold", "expected a boolean"});
  // The wedge test compares planes with the columns' tops along z.
  const std::string sideways = kDomain + kTime + "[physics]\ngravity = [-9.81, 0, 0]\n" +
                               "[[material]]\nname = \"sand\"\nkind = \"sand\"\n";
  expect_error(sideways + "culmann_wedges_yield = true\n" + sand_source,
               {"material[0].culmann_wedges_yield", "gravity along -z", "-9.81"});
  expect_error(sand + "yield_surface = \"tresca\"\n" + sand_source,
               {"material[0].yield_surface", "\"drucker_prager\" or \"mohr_coulomb\""});
  expect_error(sand + "rheology = \"mu_i\"\nyield_surface = \"mohr_coulomb\"\n" + sand_source,
               {"material[0].yield_surface", "rheology = \"zhu_bridson\" only"});
  expect_error(sand + "friction_substeps = 0\n" + sand_source,
               {"material[0].friction_substeps", "[1, 64]", "got 0"});
  expect_error(sand + "friction_substeps = 2.5\n" + sand_source,
               {"material[0].friction_substeps", "expected an integer"});
  expect_error(sand + "rheology = \"rigid_plastic\"\nfriction_substeps = 4\n" + sand_source,
               {"material[0].friction_substeps", "\"zhu_bridson\" or \"mu_i\" only"});
  expect_error(sand + "surface_static_friction = 1\n" + sand_source,
               {"material[0].surface_static_friction", "expected a boolean"});
  expect_error(sand + "rheology = \"mu_i\"\nfriction_angle = 35\nfriction_angle_dynamic = 30\n" +
                   sand_source,
               {"material[0].friction_angle_dynamic", "at least friction_angle (35)", "got 30"});
  expect_error(sand + "rheology = \"mu_i\"\ngrain_diameter = 0\n" + sand_source,
               {"material[0].grain_diameter", "> 0"});
  expect_error(kMinimal + "[[material]]\nname = \"w2\"\nkind = \"water\"\nrheology = \"mu_i\"\n",
               {"rheology"});
  expect_error(
      kMinimal +
          "[[material]]\nname = \"w2\"\nkind = \"water\"\nsurface_static_friction = true\n",
      {"surface_static_friction"});
}
// A material's transfer: APIC for the validated sand model, else PIC/FLIP, unless it says
// which; apic and rpic take no flip_ratio.
TEST(CaseConfig, Transfer) {
  const std::string sand_source =
      "[[source]]\nmaterial = \"sand\"\nshape = \"block\"\nmin = [0, 0, 0]\nmax = [0.2, 0.2, "
      "0.2]\n";
  const std::string sand = kDomain + kTime + "[[material]]\nname = \"sand\"\nkind = \"sand\"\n";
  EXPECT_EQ(parse_case_text(sand + sand_source, "x.toml").materials[0].transfer, Transfer::Apic);
  EXPECT_EQ(parse_case_text(sand + "transfer = \"flip\"\n" + sand_source, "x.toml")
                .materials[0]
                .transfer,
            Transfer::Flip);
  EXPECT_EQ(parse_case_text(sand + "transfer = \"apic\"\n" + sand_source, "x.toml")
                .materials[0]
                .transfer,
            Transfer::Apic);
  EXPECT_EQ(parse_case_text(sand + "transfer = \"rpic\"\n" + sand_source, "x.toml")
                .materials[0]
                .transfer,
            Transfer::Rpic);
  expect_error(sand + "transfer = \"mpm\"\n" + sand_source,
               {"material[0].transfer", "\"flip\" or \"apic\" or \"rpic\""});
  expect_error(sand + "transfer = \"apic\"\nflip_ratio = 0.5\n" + sand_source,
               {"material[0].flip_ratio", "transfer = \"flip\" only"});
}

// [pressure] free_surface: first order unless it says ghost_fluid.
TEST(CaseConfig, FreeSurface) {
  EXPECT_EQ(parse_case_text(kMinimal, "x.toml").pressure.free_surface, FreeSurface::FirstOrder);
  EXPECT_EQ(parse_case_text(kMinimal + "[pressure]\nfree_surface = \"ghost_fluid\"\n", "x.toml")
                .pressure.free_surface,
            FreeSurface::GhostFluid);
  EXPECT_EQ(parse_case_text(kMinimal + "[pressure]\nfree_surface = \"first_order\"\n", "x.toml")
                .pressure.free_surface,
            FreeSurface::FirstOrder);
  expect_error(kMinimal + "[pressure]\nfree_surface = \"sharp\"\n",
               {"pressure.free_surface", "\"first_order\" or \"ghost_fluid\""});
}

// [output] precision and particle_stride: read, and refused with the key named.
TEST(CaseConfig, OutputPrecisionAndStride) {
  CaseConfig plain = parse_case_text(kMinimal, "x.toml");
  EXPECT_FALSE(plain.output.single_precision);
  EXPECT_EQ(plain.output.particle_stride, 1);
  CaseConfig preview =
      parse_case_text(kMinimal + "[output]\nprecision = \"single\"\nparticle_stride = 10\n",
                      "x.toml");
  EXPECT_TRUE(preview.output.single_precision);
  EXPECT_EQ(preview.output.particle_stride, 10);
  expect_error(kMinimal + "[output]\nprecision = \"half\"\n",
               {"output.precision", "\"double\" or \"single\"", "\"half\""});
  expect_error(kMinimal + "[output]\nparticle_stride = 0\n",
               {"output.particle_stride", "integer in [1,"});
  expect_error(kMinimal + "[output]\nparticle_stride = 2.5\n",
               {"output.particle_stride", "expected an integer"});
}

// [catalyst] particle_stride: 1 unless given, read, and refused with the key named. (Read
// without scripts too: the table's keys are checked whether or not Catalyst runs.)
TEST(CaseConfig, CatalystParticleStride) {
  EXPECT_EQ(parse_case_text(kMinimal, "x.toml").catalyst.particle_stride, 1);
  EXPECT_EQ(parse_case_text(kMinimal + "[catalyst]\nparticle_stride = 100\n", "x.toml")
                .catalyst.particle_stride,
            100);
  expect_error(kMinimal + "[catalyst]\nparticle_stride = 0\n",
               {"catalyst.particle_stride", "integer in [1,"});
}

// [catalyst] channels: all three unless given; a list of known channels, each once, not empty.
TEST(CaseConfig, CatalystChannels) {
  using Channels = std::vector<std::string>;
  EXPECT_EQ(parse_case_text(kMinimal, "x.toml").catalyst.channels,
            (Channels{"input", "grid", "material_fraction"}));
  EXPECT_EQ(parse_case_text(kMinimal + "[catalyst]\nchannels = [\"input\"]\n", "x.toml")
                .catalyst.channels,
            Channels{"input"});
  expect_error(kMinimal + "[catalyst]\nchannels = [\"input\", \"particles\"]\n",
               {"catalyst.channels[1]", "expected one of \"input\", \"grid\"", "particles"});
  expect_error(kMinimal + "[catalyst]\nchannels = [\"grid\", \"grid\"]\n",
               {"catalyst.channels[1]", "listed twice"});
  expect_error(kMinimal + "[catalyst]\nchannels = []\n",
               {"catalyst.channels", "at least one channel"});
  expect_error(kMinimal + "[catalyst]\nchannels = \"input\"\n",
               {"catalyst.channels", "expected an array of strings"});
}

// cases/README.md's key tables are the schema's (io/case_schema.hpp), section by section: a
// key added to the reader without its row, or a row edited in one place only, fails here.
// The expected table is printed, to paste into the README.
TEST(CaseSchema, ReadmeKeyTablesAreTheSchemas) {
  std::ifstream in(std::string(DUNESIM_CASES_DIR) + "/README.md");
  ASSERT_TRUE(in) << "cannot read cases/README.md";
  std::stringstream text;
  text << in.rdbuf();
  const std::string readme = text.str();
  std::vector<std::string_view> sections;
  for (const CaseKey& row : case_schema())
    if (std::find(sections.begin(), sections.end(), row.section) == sections.end())
      sections.push_back(row.section);
  EXPECT_EQ(sections.size(), 13u);
  for (std::string_view section : sections) {
    const std::string table = key_table_markdown(section);
    EXPECT_NE(readme.find(table), std::string::npos)
        << "cases/README.md lacks the [" << section << "] table of io/case_schema.cpp:\n"
        << table;
  }
}

// Every key the schema lists is one the reader takes: a case naming it is not refused as an
// unknown key (it may be refused for its value, or as a key of another material or rheology).
TEST(CaseSchema, ReaderKnowsEveryKeyOfTheSchema) {
  for (const CaseKey& row : case_schema())
    for (std::string_view key : row.names) {
      const std::vector<std::string_view> known = keys_of(row.section);
      EXPECT_NE(std::find(known.begin(), known.end(), key), known.end()) << key;
    }
  // A misspelt key is refused with the schema's closest spelling.
  try {
    parse_case_text("[domain]\nsize = [1, 1, 1]\ncell_sise = 0.1\n", "x.toml");
    FAIL() << "a misspelt key was accepted";
  } catch (const CaseError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'cell_size'"), std::string::npos)
        << e.what();
  }
}

// The physics budget (src/driver/physics_budget.hpp): a wet sand's conductivity or an elastic
// sand's shear modulus that the reader accepts but that would take millions of substeps a
// step, or more steps than any run, is refused, naming the key and the figure. At 5 cm cells
// the longest step is max_dt, 0.01 s (the CFL step of a fall from rest is 0.0714 s); the
// drainage substep is n (1 - S') dx / K. With n = 0.4 and S' = 0.4 that is 12 s for
// K = 1e-3 m/s (1 substep), 1.2e-5 s for K = 1000 m/s (833 substeps, within the 1000), and
// 1.2e-6 s for K = 1e4 m/s (8333: refused). The default shear modulus (2e5 Pa) steps at
// 0.4 dx / sqrt(G / rho) = 1.8e-3 s, 280 steps to 0.5 s; 1e300 Pa is refused.
TEST(PhysicsBudget, RefusesSubstepsAndStepsBeyondItsBound) {
  const std::string sand_source =
      "[[source]]\nmaterial = \"sand\"\nshape = \"block\"\nmin = [0, 0, 0]\nmax = [0.2, 0.2, "
      "0.1]\n";
  const std::string sand = kDomain + kTime + "[[material]]\nname = \"sand\"\nkind = \"sand\"\n";
  auto budget_error = [&](const std::string& keys) -> std::string {
    try {
      check_physics_budget(parse_case_text(sand + keys + sand_source, "x.toml"));
    } catch (const CaseError& e) { return e.what(); }
    return "";
  };
  const std::string wet = "porosity = 0.4\nideal_saturation = 0.4\n";
  EXPECT_EQ(budget_error(wet + "conductivity = 1e-3\n"), "");
  EXPECT_EQ(budget_error(wet + "conductivity = 1000\n"), "");
  const std::string fast = budget_error(wet + "conductivity = 1e4\n");
  EXPECT_NE(fast.find("material[0].conductivity"), std::string::npos) << fast;
  EXPECT_NE(fast.find("8333 substeps a step"), std::string::npos) << fast;
  // Richards' pore water is solved implicitly: no substeps to count.
  EXPECT_EQ(budget_error(wet + "conductivity = 1e4\npore_flow = \"richards\"\n"), "");
  EXPECT_EQ(budget_error("rheology = \"elastic_plastic\"\n"), "");
  const std::string stiff =
      budget_error("rheology = \"elastic_plastic\"\nshear_modulus = 1e300\n");
  EXPECT_NE(stiff.find("material[0].shear_modulus"), std::string::npos) << stiff;
  // The capillary diffusion substep is dx^2 / (6 k_p): 4.2e-6 s for k_p = 100 m^2/s, 2400
  // substeps of the 0.01 s step (refused); k_p = 1 takes 24.
  EXPECT_EQ(budget_error(wet + "propagation_rate = 1\n"), "");
  const std::string capillary = budget_error(wet + "propagation_rate = 100\n");
  EXPECT_NE(capillary.find("material[0].propagation_rate"), std::string::npos) << capillary;
  EXPECT_NE(capillary.find("2400 substeps a step"), std::string::npos) << capillary;
  // [time] end = 1e7 s is 1e9 steps of 0.01 s (the frames at a 1e4 s interval are few).
  std::string long_run;
  try {
    check_physics_budget(parse_case_text(
        kDomain + "[time]\nend = 1e7\n[output]\ninterval = 1e4\n" + kWater + kSource, "x.toml"));
  } catch (const CaseError& e) { long_run = e.what(); }
  EXPECT_NE(long_run.find("time.end"), std::string::npos) << long_run;
  EXPECT_NE(long_run.find("1e+09 steps of 0.01 s"), std::string::npos) << long_run;
}

// --end-time is the end the budget counts when it is given: a case that the budget passes
// to its own end (1e13 Pa steps at 2.5e-7 s: 2e6 steps to 0.5 s, 4e6 to 1 s) is refused to a
// later one (4e9 steps to 1000 s), naming --end-time.
TEST(PhysicsBudget, CountsStepsToTheCommandLinesEndTime) {
  const std::string sand = kDomain + kTime +
                           "[[material]]\nname = \"sand\"\nkind = \"sand\"\n"
                           "rheology = \"elastic_plastic\"\nshear_modulus = 1e13\n"
                           "[[source]]\nmaterial = \"sand\"\nshape = \"block\"\n"
                           "min = [0, 0, 0]\nmax = [0.2, 0.2, 0.1]\n";
  const CaseConfig config = parse_case_text(sand, "x.toml");
  EXPECT_NO_THROW(check_physics_budget(config));
  EXPECT_NO_THROW(check_physics_budget(config, 1));
  try {
    check_physics_budget(config, 1000);
    ADD_FAILURE() << "--end-time 1000 passed the budget";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--end-time 1000"), std::string::npos) << what;
    EXPECT_NE(what.find("material[0].shear_modulus"), std::string::npos) << what;
    EXPECT_NE(what.find("steps to --end-time 1000 s"), std::string::npos) << what;
  }
  // Water alone: 1e7 s is 1e9 steps of max_dt (0.01 s).
  const CaseConfig water = parse_case_text(kDomain + kTime + kWater + kSource, "w.toml");
  try {
    check_physics_budget(water, 1e7);
    ADD_FAILURE() << "--end-time 1e7 passed the budget";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--end-time 1e+07: 1e+07 s takes at least 1e+09 steps"),
              std::string::npos)
        << e.what();
  }
}

// What a diverged pressure solve names (extreme_material_parameters): at 5 cm cells and
// dt = 0.01 s, each figure against its bound, and nothing for parameters within them.
TEST(PhysicsBudget, NamesTheMaterialParametersBeyondTheirStableRange) {
  const std::string sand_source =
      "[[source]]\nmaterial = \"sand\"\nshape = \"block\"\nmin = [0, 0, 0]\nmax = [0.2, 0.2, "
      "0.1]\n";
  const std::string sand = kDomain + kTime + "[[material]]\nname = \"sand\"\nkind = \"sand\"\n";
  auto extreme = [&](const std::string& keys, double dt) {
    return extreme_material_parameters(parse_case_text(sand + keys + sand_source, "x.toml"), dt);
  };
  const std::string wet = "porosity = 0.4\nideal_saturation = 0.4\n";
  EXPECT_EQ(extreme(wet + "conductivity = 1e-3\npropagation_rate = 1e-4\n", 0.01), "");
  EXPECT_EQ(extreme("", 0.01), "");
  // k_p dt / dx^2 = 1e300 * 0.01 / 0.0025 = 4e300.
  const std::string capillary = extreme(wet + "propagation_rate = 1e300\n", 0.01);
  EXPECT_NE(capillary.find("material[0].propagation_rate = 1e+300 m^2/s"), std::string::npos)
      << capillary;
  EXPECT_NE(capillary.find("propagation_rate dt / dx^2 = 4e+300"), std::string::npos)
      << capillary;
  EXPECT_EQ(capillary.find("conductivity"), std::string::npos) << capillary;
  // The pores drain in n (1 - S') dx / K = 1.2e-6 s at K = 1e4 m/s: 8333 times within dt.
  const std::string drained = extreme(wet + "conductivity = 1e4\n", 0.01);
  EXPECT_NE(drained.find("material[0].conductivity = 1e+04 m/s"), std::string::npos) << drained;
  EXPECT_NE(drained.find("8333 times within dt"), std::string::npos) << drained;
  // Richards' pore water is implicit: the same conductivity limits nothing there.
  EXPECT_EQ(extreme(wet + "conductivity = 1e4\npore_flow = \"richards\"\n", 0.01), "");
  // mu dt / (rho dx^2) = 1e6 * 0.01 / (rho 0.0025) is 4e6 / rho, far beyond 1/6.
  const std::string viscous = extreme(wet + "mud_viscosity = 1e6\n", 0.01);
  EXPECT_NE(viscous.find("material[0].mud_viscosity = 1e+06 Pa s"), std::string::npos) << viscous;
  EXPECT_NE(viscous.find("mud_viscosity dt / (density dx^2) = "), std::string::npos) << viscous;
  EXPECT_EQ(extreme(wet + "mud_viscosity = 1e-3\n", 0.01), "");
  // The elastic wave step at 1e300 Pa is about 1e-151 s.
  const std::string stiff =
      extreme("rheology = \"elastic_plastic\"\nshear_modulus = 1e300\n", 1e-3);
  EXPECT_NE(stiff.find("material[0].shear_modulus = 1e+300 Pa"), std::string::npos) << stiff;
  EXPECT_NE(stiff.find("its elastic waves allow steps of"), std::string::npos) << stiff;
  EXPECT_EQ(extreme("rheology = \"elastic_plastic\"\n", 1e-3), "");
}

// The progress line's durations (format_duration, src/driver/run_driver.hpp): an ETA from a
// step of 1e-151 s must not overflow into "-2562047788015215:-30:-8".
TEST(ProgressLine, DurationsStayReadableForAnyValue) {
  EXPECT_EQ(format_duration(0), "00:00:00");
  EXPECT_EQ(format_duration(59.6), "00:01:00");
  EXPECT_EQ(format_duration(3723), "01:02:03");
  EXPECT_EQ(format_duration(99 * 3600 + 59 * 60 + 59), "99:59:59");
  EXPECT_EQ(format_duration(100 * 3600), "4d 04:00:00");
  EXPECT_EQ(format_duration(2.1e8), "2430d 13:20:00");
  EXPECT_EQ(format_duration(3.2e9), "more than 100 years");
  EXPECT_EQ(format_duration(1e300), "more than 100 years");
  EXPECT_EQ(format_duration(std::numeric_limits<double>::infinity()), "more than 100 years");
  EXPECT_EQ(format_duration(std::nan("")), "more than 100 years");
  EXPECT_EQ(format_duration(-1), "--");
  EXPECT_EQ(format_duration(-std::numeric_limits<double>::infinity()), "--");
}

// A block of porous sand and the material's first lines, for the wet keys' tests.
const std::string kPorousSandSource =
    "[[source]]\nmaterial = \"sand\"\nshape = \"block\"\nmin = [0, 0, 0]\nmax = [0.2, 0.2, "
    "0.1]\n";
std::string porous_sand() {
  return kDomain + kTime + "[[material]]\nname = \"sand\"\nkind = \"sand\"\nporosity = 0.43\n";
}

// Richards' pore water: its soil keys only with it, its conductivity required, the
// diffusion model's rate refused, and the soil model's ranges.
TEST(CaseConfig, RichardsPoreFlowKeys) {
  const std::string sand_source = kPorousSandSource, sand = porous_sand();
  const std::string richards = "pore_flow = \"richards\"\n";
  const CaseConfig c =
      parse_case_text(sand + richards + "conductivity = 8e-5\nvan_genuchten_alpha = 3.6\n" +
                          sand_source,
                      "x.toml");
  EXPECT_EQ(c.materials[0].wet.pore_flow, PoreFlow::Richards);
  EXPECT_EQ(c.materials[0].wet.van_genuchten_alpha, 3.6);
  EXPECT_EQ(c.materials[0].wet.van_genuchten_n, 2.68);
  expect_error(sand + "van_genuchten_alpha = 3.6\n" + sand_source,
               {"material[0].van_genuchten_alpha", "pore_flow = \"richards\" only"});
  expect_error(sand + richards + sand_source, {"material[0].conductivity", "must be > 0"});
  expect_error(sand + richards + "conductivity = 8e-5\npropagation_rate = 1e-4\n" + sand_source,
               {"material[0].propagation_rate", "\"diffusion\" only"});
  expect_error(sand + richards + "conductivity = 8e-5\nvan_genuchten_n = 1\n" + sand_source,
               {"material[0].van_genuchten_n", "in (1, 20]"});
  expect_error(sand + "pore_flow = \"darcy\"\n" + sand_source,
               {"material[0].pore_flow", "richards"});
  EXPECT_EQ(c.materials[0].wet.pore_flow_interval, 0.05);
  expect_error(sand + "pore_flow_interval = 0.1\n" + sand_source,
               {"material[0].pore_flow_interval", "pore_flow = \"richards\" only"});
  expect_error(sand + richards + "conductivity = 8e-5\npore_flow_interval = 0\n" + sand_source,
               {"material[0].pore_flow_interval", "> 0"});
}

// Friction on the effective stress: Richards' pore water only (the pore pressure comes from
// its heads), a porosity required, the mud of the seed papers by default, names checked.
TEST(CaseConfig, SoakedFrictionKeys) {
  const std::string sand_source = kPorousSandSource, sand = porous_sand();
  const std::string richards = "pore_flow = \"richards\"\nconductivity = 8e-5\n";
  const std::string effective = "soaked_friction = \"effective_stress\"\n";
  EXPECT_EQ(
      parse_case_text(sand + richards + sand_source, "x.toml").materials[0].wet.soaked_friction,
      SoakedFriction::Mud);
  EXPECT_EQ(parse_case_text(sand + richards + effective + sand_source, "x.toml")
                .materials[0]
                .wet.soaked_friction,
            SoakedFriction::EffectiveStress);
  expect_error(sand + effective + sand_source,
               {"material[0].soaked_friction", "needs pore_flow = \"richards\""});
  expect_error(sand + richards + "soaked_friction = \"terzaghi\"\n" + sand_source,
               {"material[0].soaked_friction", "effective_stress"});
  expect_error(kDomain + kTime + "[[material]]\nname = \"sand\"\nkind = \"sand\"\n" + effective +
                   sand_source,
               {"material[0].soaked_friction", "needs a porosity > 0"});
}

}  // namespace dunesim

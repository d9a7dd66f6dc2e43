// How hard the sand brakes a layer sliding down a slope of the same sand, and whether the
// slope stands (not a test): a layer two cells deep (--layer-cells), started at 0.5 m/s
// (--speed; 0 leaves the slope at rest) down a bed at rest, in a slab 4 cells thick with
// frictionless sides (--rough-sides gives them the floor's mu). The slope is either the
// grid's own axis with gravity tilted (--tilted), or a staircase of cells under vertical
// gravity from the x = 0 wall down to a flat apron, as a heap's flank is; --feed-speed pours
// onto its crest from a nozzle one cell wide.
//
//   mpiexec -n 2 slope_layer --phi 40 --angle 34 --cell 0.005 [--tilted] [--speed 0]
//
// Prints the deceleration a Coulomb block on the same slope would have with eq. 2's friction
// in simple shear, g (sqrt(3/2) sin(phi) cos(theta) - sin(theta)), and every --report-every
// seconds the layer's mean speed along the slope, the surface's fitted slope, how much of the
// sand moves and where, and the pressure of the top three cells of the slope's middle
// columns in units of rho g dx (docs/findings/culmann_wedges_yield.md, "Slopes of the
// default model").
#include <mpi.h>
#include <petscsys.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#include "decomposition/reductions.hpp"
#include "io/case_config.hpp"
#include "src/driver/simulation.hpp"
#include "src/sand/sand_model.hpp"
#include "src/sand/sand_parameters.hpp"

using namespace dunesim;

namespace {

struct SlopeSpec {
  double friction_angle = 40;  // degrees
  double angle = 34;           // degrees, the slope
  double cell = 0.005;         // m
  double length = 0.6;         // m, the slope's run along x
  double bed_cells = 6;        // the bed's depth under the layer, cells
  double layer_cells = 2;      // the layer's depth, cells
  double speed = 0.5;          // m/s, the layer's start down the slope
  double duration = 0.5;       // s
  double report_every = 0.05;  // s
  bool tilted = false;
  bool culmann_wedges_yield = true;
  bool rough_sides = false;
  double feed_speed = 0;  // m/s down from a nozzle one cell wide above the crest (staircase)
  uint64_t seed = 1;
};

constexpr double kGravity = 9.81;

double radians(double degrees) { return degrees * M_PI / 180; }

MaterialSpec default_sand(double friction_angle, const Vec3& gravity) {
  MaterialSpec sand;
  sand.name = "sand";
  sand.kind = MaterialKind::Sand;
  sand.density = 1600;
  const SandModelDefaults model = sand_model_defaults(true, false, gravity);
  sand.transfer = model.apic ? Transfer::Apic : Transfer::Flip;
  sand.rheology.rigid_cells_own_velocity = model.rigid_cells_own_velocity;
  sand.rheology.culmann_wedges_yield = model.culmann_wedges_yield;
  sand.rheology.resting_grains_hold = model.resting_grains_hold;
  sand.friction_angle_deg = friction_angle;
  return sand;
}

// Tilted: the bed fills the floor's length, the layer its upper half. Staircase: the bed is a
// heightfield falling along +x at the slope's angle, the layer the band above it, measured
// vertically as depth / cos(theta).
CaseConfig slope_case(const SlopeSpec& s) {
  const double theta = radians(s.angle);
  CaseConfig c;
  c.file = "<probe>";
  c.name = "slope_layer";
  c.seed = s.seed;
  const double bed = s.bed_cells * s.cell, layer = s.layer_cells * s.cell;
  if (s.tilted) {
    c.gravity = {kGravity * std::sin(theta), 0.0, -kGravity * std::cos(theta)};
    c.domain_size = {s.length, 4 * s.cell, bed + layer + 8 * s.cell};
  } else {
    const double drop = s.length * std::tan(theta);
    c.domain_size = {s.length + 0.3, 4 * s.cell, drop + (bed + layer) / std::cos(theta) + 0.06};
  }
  set_cell_size(c, s.cell);
  c.materials.push_back(default_sand(s.friction_angle, c.gravity));
  c.materials[0].rheology.culmann_wedges_yield = s.culmann_wedges_yield;
  SourceSpec source;
  source.material = 0;
  if (s.tilted) {
    source.shape.kind = ShapeSpec::Kind::Block;
    source.shape.min = {0.0, 0.0, 0.0};
    source.shape.max = {s.length, c.domain_size[1], bed + layer};
  } else {
    const double top = s.length * std::tan(theta) + (bed + layer) / std::cos(theta);
    source.shape.kind = ShapeSpec::Kind::Heightfield;
    source.shape.profile_x = {0.0, s.length, c.domain_size[0]};
    source.shape.profile_height = {top, top - s.length * std::tan(theta),
                                   top - s.length * std::tan(theta)};
  }
  c.sources.push_back(source);
  if (!s.tilted && s.feed_speed > 0) {
    const double crest = source.shape.profile_height[0];
    SourceSpec nozzle;
    nozzle.shape.kind = ShapeSpec::Kind::Block;
    nozzle.shape.min = {0.0, 0.0, crest + 2 * s.cell};
    nozzle.shape.max = {s.cell, c.domain_size[1], crest + 4 * s.cell};
    nozzle.velocity = {0.0, 0.0, -s.feed_speed};
    nozzle.emit_until = s.duration;
    c.sources.push_back(nozzle);
  }
  c.wall_friction = 1.0;  // the floor holds the bed
  c.frictionless_wall = {true, true, !s.rough_sides, !s.rough_sides, false, true};
  c.pressure.rtol = 1e-6;
  c.output.directory = "probe_output";
  return c;
}

// Whether particle n belongs to the layer: within `layer` of the surface, measured normal to
// the slope, and within the slope's upper part (its toe runs out onto the flat).
bool in_layer(const SlopeSpec& s, double x, double z) {
  const double theta = radians(s.angle);
  const double bed = s.bed_cells * s.cell, layer = s.layer_cells * s.cell;
  if (s.tilted) return z > bed && x < 0.5 * s.length;
  const double top = s.length * std::tan(theta) + (bed + layer) / std::cos(theta);
  const double surface = top - x * std::tan(theta);
  return x > 0.1 * s.length && x < 0.6 * s.length && z > surface - layer / std::cos(theta);
}

// The mean speed along the slope of the layer's grains picked at the start (collective).
double layer_speed(const Simulation& sim, const SlopeSpec& s, const std::vector<double>& mark) {
  const double theta = radians(s.angle);
  const Vec3 down = s.tilted ? Vec3{1.0, 0.0, 0.0} : Vec3{std::cos(theta), 0.0, -std::sin(theta)};
  const Particles& p = sim.particles();
  double sum[2] = {0, 0};
  for (size_t n = 0; n < p.size(); ++n) {
    if (size_t(p.id[n]) >= mark.size() || !mark[p.id[n]]) continue;  // poured later
    sum[0] += p.vx[n] * down[0] + p.vz[n] * down[2];
    sum[1] += 1;
  }
  global_sum_in_place(sim.topology(), sum, 2);
  return sum[1] > 0 ? sum[0] / sum[1] : 0.0;
}

// The surface's slope, degrees: the least-squares line through the highest grain of each
// column of cells between 20% and 80% of the slope's length (collective; staircase only).
double surface_slope_deg(const Simulation& sim, const SlopeSpec& s) {
  const int columns = sim.config().cells[0];
  std::vector<double> top(columns, 0.0);
  const Particles& p = sim.particles();
  for (size_t n = 0; n < p.size(); ++n) {
    const int col = std::clamp(int(p.x[n] / s.cell), 0, columns - 1);
    top[col] = std::max(top[col], double(p.z[n]));
  }
  all_reduce_in_place(sim.topology(), top.data(), int64_t(columns), MPI_MAX);
  double sx = 0, sz = 0, sxx = 0, sxz = 0, count = 0;
  for (int col = 0; col < columns; ++col) {
    const double x = (col + 0.5) * s.cell;
    if (x < 0.2 * s.length || x > 0.8 * s.length) continue;
    sx += x, sz += top[col], sxx += x * x, sxz += x * top[col], count += 1;
  }
  const double gradient = (count * sxz - sx * sz) / (count * sxx - sx * sx);
  return -std::atan(gradient) * 180 / M_PI;
}

// The pressure of the top three sand cells of each column on the slope's middle (30% to 60%
// of its length), in units of a full cell's weight over its base, rho g dx: the first-order
// free surface gives 1, 2, 3 under a flat top (collective).
std::array<double, 3> surface_pressures(Simulation& sim, const SlopeSpec& s) {
  const MacGrid& g = sim.grid();
  const Box owned = sim.topology().owned_cells(sim.topology().rank());
  double sums[4] = {0, 0, 0, 0};
  for (int i = owned.lo[0]; i < owned.hi[0]; ++i) {
    const double x = (i + 0.5) * s.cell;
    if (x < 0.3 * s.length || x > 0.6 * s.length) continue;
    for (int j = owned.lo[1]; j < owned.hi[1]; ++j) {
      int top = owned.hi[2] - 1;
      while (top >= owned.lo[2] + 2 && g.cell_type(i, j, top) != kFluid) --top;
      // The surface only: a rank under another one has fluid above its top cells.
      if (top < owned.lo[2] + 2 || g.cell_type(i, j, top + 1) != kAir) continue;
      for (int d = 0; d < 3; ++d)
        sums[d] += g.pressure(i, j, top - d) / (g.density(i, j, top - d) * kGravity * s.cell);
      sums[3] += 1;
    }
  }
  global_sum_in_place(sim.topology(), sums, 4);
  return {sums[0] / sums[3], sums[1] / sums[3], sums[2] / sums[3]};
}

// Marks the layer's grains (by particle id, 1 for the layer, on every rank) and starts them
// down the slope at s.speed (collective).
std::vector<double> start_layer(Simulation& sim, const SlopeSpec& s) {
  Particles& p = sim.particles();
  const double theta = radians(s.angle);
  const Vec3 down = s.tilted ? Vec3{1.0, 0.0, 0.0} : Vec3{std::cos(theta), 0.0, -std::sin(theta)};
  int64_t most_id = 0;
  for (size_t n = 0; n < p.size(); ++n) most_id = std::max(most_id, int64_t(p.id[n]));
  std::vector<double> mark(size_t(global_max(sim.topology(), double(most_id))) + 1, 0);
  for (size_t n = 0; n < p.size(); ++n)
    if (in_layer(s, p.x[n], p.z[n])) {
      mark[p.id[n]] = 1;
      p.vx[n] = float(s.speed * down[0]);
      p.vz[n] = float(s.speed * down[2]);
    }
  all_reduce_in_place(sim.topology(), mark.data(), int64_t(mark.size()), MPI_MAX);
  return mark;
}

// The grains moving faster than 1 cm/s: their share of all grains, the fastest speed and the
// height of the highest one, which tells where a failure starts (collective).
struct Motion {
  double share = 0, fastest = 0, highest = 0;
  double middle_speed = 0;  // the mean speed of those between 30% and 60% of the slope's length
  double fastest_x = 0, fastest_z = 0;  // where the fastest grain is
};

Motion sand_in_motion(const Simulation& sim, const SlopeSpec& s) {
  const Particles& p = sim.particles();
  double sums[3] = {0, 0, 0};  // moving grains; in the middle: their speeds, their number
  Motion m;
  for (size_t n = 0; n < p.size(); ++n) {
    const double speed = p.speed(n);
    m.fastest = std::max(m.fastest, speed);
    if (speed <= 0.01) continue;
    sums[0] += 1;
    m.highest = std::max(m.highest, double(p.z[n]));
    if (p.x[n] < 0.3 * s.length || p.x[n] > 0.6 * s.length) continue;
    sums[1] += speed;
    sums[2] += 1;
  }
  const Topology& topo = sim.topology();
  global_sum_in_place(topo, sums, 3);
  m.share = sums[0] / double(global_sum(topo, int64_t(p.size())));
  m.middle_speed = sums[2] > 0 ? sums[1] / sums[2] : 0.0;
  const double here = m.fastest;
  m.fastest = global_max(topo, m.fastest);
  double place[3] = {0, 0, 0};  // the fastest grain's x and z, and how many ranks hold it
  for (size_t n = 0; n < p.size() && here == m.fastest; ++n)
    if (p.speed(n) == m.fastest) {
      place[0] = p.x[n], place[1] = p.z[n], place[2] = 1;
      break;
    }
  global_sum_in_place(topo, place, 3);
  m.fastest_x = place[0] / std::max(place[2], 1.0);
  m.fastest_z = place[1] / std::max(place[2], 1.0);
  m.highest = global_max(topo, m.highest);
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"a layer sliding down a slope of sand"};
  SlopeSpec s;
  app.add_option("--phi", s.friction_angle, "friction angle, degrees");
  app.add_option("--angle", s.angle, "the slope, degrees");
  app.add_option("--cell", s.cell, "cell size, m");
  app.add_option("--length", s.length, "the slope's length along x, m");
  app.add_option("--layer-cells", s.layer_cells, "the layer's depth, cells");
  app.add_option("--speed", s.speed, "the layer's start, m/s");
  app.add_option("--duration", s.duration, "s");
  app.add_option("--report-every", s.report_every, "s");
  app.add_option("--feed-speed", s.feed_speed,
                 "m/s: pour from a nozzle one cell wide above the crest (staircase only)");
  app.add_flag("--rough-sides", s.rough_sides, "the slab's sides with the floor's friction");
  app.add_flag("--tilted", s.tilted, "the slope along the grid, gravity tilted");
  app.add_option("--seed", s.seed, "seed of the jitter");
  app.add_option("--culmann-wedges-yield", s.culmann_wedges_yield,
                 "sand above a daylighting plane at phi yields (the default model's rule)");
  CLI11_PARSE(app, argc, argv);
  MPI_Init(&argc, &argv);
  PetscInitialize(&argc, &argv, nullptr, nullptr);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  {
    Simulation sim(slope_case(s), MPI_COMM_WORLD);
    const std::vector<double> mark = start_layer(sim, s);
    const double theta = radians(s.angle);
    const double mu = std::sqrt(1.5) * std::sin(radians(s.friction_angle));
    if (rank == 0)
      std::printf(
          "phi %.1f slope %.1f deg (%s), cell %.4f: eq. 2's block decelerates at %.2f "
          "m/s^2 (it stops below %.1f deg)\n",
          s.friction_angle, s.angle, s.tilted ? "tilted gravity" : "staircase", s.cell,
          kGravity * (mu * std::cos(theta) - std::sin(theta)), std::atan(mu) * 180 / M_PI);
    for (double t = s.report_every; t <= s.duration + 1e-9; t += s.report_every) {
      while (sim.time() < t - 1e-12) sim.step(std::min(sim.stable_dt(), t - sim.time()));
      const double v = layer_speed(sim, s, mark);
      const double slope = s.tilted ? 0.0 : surface_slope_deg(sim, s);
      const Motion motion = sand_in_motion(sim, s);
      const std::array<double, 3> pressure =
          s.tilted ? std::array<double, 3>{} : surface_pressures(sim, s);
      if (rank == 0)
        std::printf("    top cells' pressure / (rho g dx): %.2f %.2f %.2f\n", pressure[0],
                    pressure[1], pressure[2]);
      if (rank == 0)
        std::printf(
            "  t %.2f s: layer %.3f m/s, surface %.1f deg, %.2f%% of the grains moving "
            "(fastest %.3f m/s at x %.3f z %.3f, highest at z %.3f m; %.3f m/s on the slope's "
            "middle)\n",
            t, v, slope, 100 * motion.share, motion.fastest, motion.fastest_x, motion.fastest_z,
            motion.highest, motion.middle_speed);
    }
  }
  PetscFinalize();
  MPI_Finalize();
  return 0;
}

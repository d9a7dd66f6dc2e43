// Physics of the sand model against analytic results (1 and 2 ranks).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "decomposition/reductions.hpp"
#include "src/driver/simulation.hpp"
#include "tests/deposit_rings.hpp"
#include "tests/scenes.hpp"
#include "tests/world.hpp"

using namespace dunesim;

namespace {

constexpr double kGravity = 9.81;
constexpr double kRestSpeed = 0.01;  // m/s

CaseConfig sand_case(Vec3 domain, double cell, Vec3 lo, Vec3 hi, double friction_angle,
                     double cohesion) {
  CaseConfig c = test::sand_box_case(domain, cell, lo, hi, friction_angle);
  c.materials[0].cohesion = cohesion;
  c.pressure.rtol = 1e-8;
  return c;
}

// Mean of a particle attribute over all ranks.
template <class F>
double mean_over_particles(const Simulation& sim, F value) {
  const Particles& p = sim.particles();
  double sum = 0;
  for (size_t n = 0; n < p.size(); ++n) sum += value(p, n);
  return global_sum(sim.topology(), sum) / double(global_sum(sim.topology(), int64_t(p.size())));
}

// A cohesive sand block (it stays one rigid body) on a floor with Coulomb coefficient mu,
// gravity tilted by theta: the floor is the inclined plane. Returns the block's mean
// down-slope velocity at each of `times` (increasing).
std::vector<double> slide_velocities(double theta_deg, double mu,
                                     const std::vector<double>& times,
                                     SandRheology::Kind rheology) {
  const double theta = theta_deg * M_PI / 180.0;
  CaseConfig c =
      sand_case({0.6, 0.1, 0.1}, 0.01, {0.05, 0.02, 0.0}, {0.15, 0.08, 0.04}, 40.0, 5000.0);
  c.wall_friction = mu;
  c.gravity = {kGravity * std::sin(theta), 0.0, -kGravity * std::cos(theta)};
  c.max_dt = 0.002;
  c.materials[0].rheology.kind = rheology;
  if (make_sand_model(c.materials[0])->carries_particle_stress())
    c.materials[0].rheology.surface_static_friction = false;
  Simulation sim(c, MPI_COMM_WORLD);
  std::vector<double> velocities;
  for (double t : times) {
    while (sim.time() < t - 1e-12) sim.step(std::min(sim.stable_dt(), t - sim.time()));
    velocities.push_back(
        mean_over_particles(sim, [](const Particles& p, size_t n) { return p.vx[n]; }));
  }
  return velocities;
}

// The same block's velocity after `duration`.
double slide_velocity(double theta_deg, double mu, double duration,
                      SandRheology::Kind rheology = SandRheology::Kind::ZhuBridson) {
  return slide_velocities(theta_deg, mu, {duration}, rheology)[0];
}

// The block's speed after 0.2 s below the friction angle atan(mu) = 26.6 degrees (20
// degrees), and the speed it slides at above it (35 degrees) with the speed
// a = g (sin theta - mu cos theta) gives it.
struct SlideSpeeds {
  double at_20_deg, at_35_deg, coulomb_at_35_deg;
};
SlideSpeeds slide_speeds(SandRheology::Kind rheology) {
  const double mu = 0.5, duration = 0.2, theta = 35.0 * M_PI / 180.0;
  SlideSpeeds s;
  s.at_20_deg = slide_velocity(20.0, mu, duration, rheology);
  s.at_35_deg = slide_velocity(35.0, mu, duration, rheology);
  s.coulomb_at_35_deg = kGravity * (std::sin(theta) - mu * std::cos(theta)) * duration;
  ::testing::Test::RecordProperty("velocity_m_per_s", std::to_string(s.at_20_deg) + " " +
                                                          std::to_string(s.at_35_deg));
  return s;
}

}  // namespace

// Below the friction angle the block stays put; above it, it slides with Coulomb's
// acceleration.
TEST(InclinedPlane, BlockFollowsCoulombsLaw) {
  const SlideSpeeds s = slide_speeds(SandRheology::Kind::ZhuBridson);
  // A block that slid freely would reach g sin(20 deg) t = 0.67 m/s; allow 1% of that.
  EXPECT_LT(std::abs(s.at_20_deg), 0.0067);
  // 5%: the normal force comes from the projection pressure at the centres of the cells on
  // the floor, half a cell above the contact (measured: 0.2% off when this was written).
  EXPECT_NEAR(s.at_35_deg, s.coulomb_at_35_deg, 0.05 * s.coulomb_at_35_deg);
}

// The fast sibling of the next test (a tenth of its cost; that one runs in the validation
// tier), on the same code path, the wall's friction inside the implicit solve: the block's
// acceleration at 35 degrees between 0.05 and 0.1 s against Coulomb's g (sin - mu cos).
// The speed's first 0.05 s carries a start-up excess (+13% at 0.05 s, +6.4% at 0.2 s) that the
// difference leaves out. Measured when this was written: 6.4% above Coulomb's, as the longer
// test's speed; 10% on the acceleration is 4% of the friction force (1% of mu is 2.5% of a at
// 35 degrees). A block sliding freely would accelerate 3.5 times faster, one held by twice the
// friction not at all.
TEST(InclinedPlane, RigidPlasticBlockSlidesWithCoulombsAcceleration) {
  const double mu = 0.5, theta = 35.0 * M_PI / 180.0, t0 = 0.05, t1 = 0.1;
  const std::vector<double> v =
      slide_velocities(35.0, mu, {t0, t1}, SandRheology::Kind::RigidPlastic);
  const double acceleration = (v[1] - v[0]) / (t1 - t0);
  const double coulomb = kGravity * (std::sin(theta) - mu * std::cos(theta));
  RecordProperty("acceleration_m_per_s2", std::to_string(acceleration));
  if (test::world_rank() == 0)
    std::printf("acceleration %.4f against Coulomb's %.4f m/s^2\n", acceleration, coulomb);
  EXPECT_NEAR(acceleration, coulomb, 0.10 * coulomb);
}

// Rigid-plastic sand (src/sand/rigid_plastic_sand.hpp) holds the wall's Coulomb friction inside
// its implicit solve, with the normal stress p + s_zz of the cells on the floor.
TEST(InclinedPlane, RigidPlasticBlockFollowsCoulombsLaw) {
  const SlideSpeeds s = slide_speeds(SandRheology::Kind::RigidPlastic);
  EXPECT_LT(std::abs(s.at_20_deg), 0.0067);
  // The block's speed is the small difference of gravity's pull and the friction: at 35
  // degrees 1% of mu on the friction is 2.5% on v. Measured when this was written: v 6.4%
  // above the prediction, as if mu were 0.487; the tolerance, 10% on v, is 4% of the
  // friction force.
  EXPECT_NEAR(s.at_35_deg, s.coulomb_at_35_deg, 0.10 * s.coulomb_at_35_deg);
}

namespace {

double max_speed(const Simulation& sim) {
  const Particles& p = sim.particles();
  double speed = 0;
  for (size_t n = 0; n < p.size(); ++n) speed = std::max(speed, p.speed(n));
  return global_max(sim.topology(), speed);
}

double max_x(const Simulation& sim) {
  double x = 0;
  for (double v : sim.particles().x) x = std::max(x, v);
  return global_max(sim.topology(), x);
}

// Elastic-plastic sand as its case keys would set it: FLIP, which the small elastic time step
// needs (docs/findings/elastic_plastic_sand.md).
void elastic_plastic(MaterialSpec& sand) {
  sand.rheology.kind = SandRheology::Kind::ElasticPlastic;
  sand.flip_ratio = 0.95;
}

void run_until(Simulation& sim, double t_end) {
  while (sim.time() < t_end - 1e-12) sim.step(std::min(sim.stable_dt(), t_end - sim.time()));
}

// A cut 0.2 m high (phi = 30, rho = 1600) against the x = 0 wall of a slab 4 cells thick, on
// a floor with mu = 0.5, `width` wide in a `domain` of `cell` cells, of sand set up by
// `model`: how far its face moved in `duration` with `ratio` times the cohesion Rankine's
// critical height needs, c_crit = rho g H / (4 tan(45 + phi / 2)).
struct Cut {
  double cell;
  Vec3 domain;
  double width;
  void (*model)(MaterialSpec&);
  double duration;
};
constexpr double kCutHeight = 0.2, kCutPhi = 30.0;

// Rankine's critical cohesion of a vertical face `height` high in the cuts' sand (rho = 1600,
// phi = kCutPhi): c_crit = rho g H / (4 tan(45 + phi / 2)).
double rankine_critical_cohesion(double height) {
  return 1600.0 * kGravity * height / (4 * std::tan((45.0 + kCutPhi / 2) * M_PI / 180.0));
}

double cut_face_moved(const Cut& cut, double ratio) {
  const double critical_cohesion = rankine_critical_cohesion(kCutHeight);
  CaseConfig c =
      sand_case(cut.domain, cut.cell, {0, 0, 0}, {cut.width, cut.domain[1], kCutHeight}, kCutPhi,
                ratio * critical_cohesion);
  cut.model(c.materials[0]);
  c.wall_friction = 0.5;
  Simulation sim(c, MPI_COMM_WORLD);
  run_until(sim, cut.duration);
  return max_x(sim) - cut.width;
}

using test::validated_model;

// The Rankine wedge's width at the cut's top, H tan(45 - phi / 2): 11.5 cm.
const double kCutWedgeWidth = kCutHeight * std::tan((45.0 - kCutPhi / 2) * M_PI / 180.0);

}  // namespace

// Grains far apart on a rough floor, each alone in its cell, sliding at 1 m/s: Coulomb
// friction stops each within v^2 / (2 mu g). A lone cell's projection pressure carries a
// fifth of its weight; the floor's normal force is at least the cell's weight
// (wall_friction.hpp).
TEST(LoneGrains, StopWithinCoulombsDistance) {
  const double mu = 0.6, speed = 1.0, start = 0.02;
  CaseConfig c = sand_case({0.6, 0.2, 0.1}, 0.01, {start, 0.02, 0.0},
                           {start + 0.005, 0.025, 0.005}, 30.0, 0.0);
  c.wall_friction = mu;
  c.sources[0].velocity = {speed, 0.0, 0.0};
  for (double y : {0.07, 0.12, 0.17}) {
    SourceSpec grain = c.sources[0];
    grain.shape.min[1] = y;
    grain.shape.max[1] = y + 0.005;
    c.sources.push_back(grain);
  }
  Simulation sim(c, MPI_COMM_WORLD);
  EXPECT_EQ(global_sum(sim.topology(), int64_t(sim.particles().size())), 4);
  run_until(sim, 0.4);
  const double travelled =
      mean_over_particles(sim, [](const Particles& p, size_t n) { return p.x[n]; }) - start;
  const double coulomb = speed * speed / (2 * mu * kGravity);  // 0.085 m
  RecordProperty("travelled_m", std::to_string(travelled));
  // Friction acts once a step, so a grain may stop a step early or late: one step's travel
  // at the starting speed, 1 cm (12%). Measured 0.0846 m on 1 and 2 ranks. With the normal
  // speed from the pressure alone the grains still moved at 0.56 m/s at 0.4 s; with the
  // budget also halved beside air (before the repair), at 0.74 m/s.
  EXPECT_NEAR(travelled, coulomb, speed * c.max_dt);
  EXPECT_LT(max_speed(sim), 0.01);
}

// A sheet of sand one cell thick, 10 by 10 cells, sliding at 1 m/s on a rough floor: the
// front of a collapse. Like the lone grains it stops within v^2 / (2 mu g), whatever part of
// it the yield test holds rigid this step: the rigid clusters get the floor's friction as
// bodies, the sliding cells face by face, and no face gets both (wall_friction.hpp).
TEST(SlidingSheet, StopsWithinCoulombsDistance) {
  const double mu = 0.6, speed = 1.0, start = 0.02;
  CaseConfig c =
      sand_case({0.4, 0.2, 0.05}, 0.01, {start, 0.05, 0.0}, {start + 0.1, 0.15, 0.01}, 30.0, 0.0);
  c.wall_friction = mu;
  c.sources[0].velocity = {speed, 0.0, 0.0};
  Simulation sim(c, MPI_COMM_WORLD);
  const double centre_before =
      mean_over_particles(sim, [](const Particles& p, size_t n) { return p.x[n]; });
  run_until(sim, 0.4);
  const double travelled =
      mean_over_particles(sim, [](const Particles& p, size_t n) { return p.x[n]; }) -
      centre_before;
  const double coulomb = speed * speed / (2 * mu * kGravity);  // 0.085 m
  RecordProperty("travelled_m", std::to_string(travelled));
  // As for the lone grains, one step's travel at the starting speed (12%). Measured 0.078 m
  // on 1 and 2 ranks; with the sheet's rigid parts braked twice (their faces beside sliding
  // cells by the walls' friction, then the body again) it stopped at 0.068 m, as if mu were
  // 0.75.
  EXPECT_NEAR(travelled, coulomb, speed * c.max_dt);
  EXPECT_LT(max_speed(sim), 0.01);
}

// A layer of sand at rest on the floor of a box stays at rest: every cell passes the yield
// test, so the whole layer is one rigid cluster pinned by the floor.
TEST(SandAtRest, StaysAtRest) {
  CaseConfig c = sand_case({0.2, 0.2, 0.15}, 0.01, {0, 0, 0}, {0.2, 0.2, 0.08}, 30.0, 0.0);
  c.wall_friction = 0.5;
  Simulation sim(c, MPI_COMM_WORLD);
  const int64_t particles = global_sum(sim.topology(), int64_t(sim.particles().size()));
  run_until(sim, 0.3);
  // The speed a grain would gain falling freely for 1 ms: four orders below sqrt(g h).
  EXPECT_LT(max_speed(sim), 1e-2 * 1e-3 * kGravity);
  EXPECT_EQ(global_sum(sim.topology(), int64_t(sim.particles().size())), particles);
}

// A vertical cut: a block against the left wall with a free face on its right. With
// cohesion the face stands, without it the face slumps. This checks only that cohesion acts:
// c = 5 kPa is 11 times the Rankine critical cohesion of this cut (see the next test).
TEST(VerticalCut, StandsWithCohesionCollapsesWithout) {
  auto face_after = [](double cohesion) {
    CaseConfig c =
        sand_case({0.5, 0.04, 0.25}, 0.01, {0, 0, 0}, {0.15, 0.04, 0.2}, 30.0, cohesion);
    c.wall_friction = 0.5;
    Simulation sim(c, MPI_COMM_WORLD);
    run_until(sim, 0.5);
    return max_x(sim);
  };
  const double initial = 0.15, cell = 0.01;
  const double cohesive = face_after(5000.0), loose = face_after(0.0);
  RecordProperty("face_with_cohesion_m", std::to_string(cohesive));
  RecordProperty("face_without_cohesion_m", std::to_string(loose));
  EXPECT_LT(cohesive, initial + 0.5 * cell);  // stands: the face moved less than half a cell
  EXPECT_GT(loose, initial + 5 * cell);       // collapses: the toe ran out by 5+ cells
}

// Rankine's critical height of a vertical cut in cohesive soil is H_c = (4 c / (rho g))
// tan(45 + phi / 2), so the 0.2 m face of the cut above stands up to c_crit = 453 Pa. The
// issue's bound: a cut at 1.25 c_crit stands for 2 s (its face moves less than a cell), one
// at 0.8 c_crit fails (its face moves further than the Rankine wedge is wide, 11.5 cm), at
// 1 cm cells. The default model decides it by Culmann's wedges with cohesion
// (src/sand/cohesive_wedges.hpp); the test prints the curve from c_crit / 2 to 2 c_crit.
// Measured (1 and 2 ranks alike): the face stands at c_crit and above, and at 0.95 c_crit and
// below it runs out 23-29 cm. The block's friction is eq. 2's resting block friction,
// sqrt(3/2) sin(30) = 0.612 rather than tan(30) (sand at rest is no weaker than flowing sand;
// culmann_wedges_yield.md), for which Rankine's critical cohesion is 0.971 c_crit; with
// tan(30) the face stood from 1.05 c_crit and failed at c_crit. Before the wedges had
// cohesion, a cut stood at 1/18 c_crit.
TEST(VerticalCut, DefaultModelBracketsRankineCriticalHeight) {
  const Cut cut{0.01, {0.5, 0.04, 0.25}, 0.15, validated_model, 2.0};
  double strong = 0, weak = 0;
  for (double ratio : {0.5, 0.8, 0.9, 0.95, 1.0, 1.05, 1.1, 1.25, 2.0}) {
    const double moved = cut_face_moved(cut, ratio);
    if (ratio == 1.25) strong = moved;
    if (ratio == 0.8) weak = moved;
    if (test::world_rank() == 0)
      std::printf("c / c_crit %.2f: face moved %.4f m in 2 s\n", ratio, moved);
  }
  EXPECT_LT(strong, cut.cell);
  EXPECT_GT(weak, kCutWedgeWidth);
}

// The fast sibling of DefaultModelBracketsRankineCriticalHeight (which runs in the validation
// tier): the same cut at 2 cm cells (10 cells high), 1.25 and 0.8 c_crit for 1 s. Measured:
// 0.0 and 26 cm on 2 ranks.
TEST(VerticalCut, DefaultModelCoarseCutBracketsRankineCriticalHeight) {
  const Cut cut{0.02, {0.5, 0.08, 0.26}, 0.16, validated_model, 1.0};
  const double strong = cut_face_moved(cut, 1.25), weak = cut_face_moved(cut, 0.8);
  RecordProperty("face_moved_at_1.25_critical_cohesion_m", std::to_string(strong));
  RecordProperty("face_moved_at_0.8_critical_cohesion_m", std::to_string(weak));
  EXPECT_LT(strong, cut.cell);
  EXPECT_GT(weak, kCutWedgeWidth);
}

// A plane slope of the default model's sand (a heightfield from the x = 0 wall down to the
// floor) in a slab 4 cells thick, friction angle `phi_deg`: its crest's height (the highest
// grain within two cells of the wall) after 2 s over its height at the start. The walls,
// floor included, have mu 0.6; with `plane_strain` the slab's sides and the x = 0 wall
// (a symmetry plane) are frictionless, so nothing but the floor holds the sand.
struct Slope {
  double height = 0.1, cell = 0.01;  // m
  bool plane_strain = false;
  double crest = 0;  // m: a flat top this deep between the wall and the slope's edge
};

// The slope's case; `sand_keys` are added to the sand material's table.
CaseConfig slope_case(double slope_deg, double phi_deg, const Slope& slope,
                      const std::string& sand_keys = "") {
  const double height = slope.height, cell = slope.cell;
  const double run = height / std::tan(slope_deg * M_PI / 180.0);
  const double toe = slope.crest + run;
  const double length = std::ceil((toe + 0.1) / cell) * cell;
  std::ostringstream text;
  text << "[case]\nname = \"slope\"\n[domain]\nsize = [" << length << ", " << 4 * cell << ", "
       << height + 0.05 << "]\n"
       << "cell_size = " << cell << "\nwall_friction = 0.6\n"
       << (slope.plane_strain ? "frictionless_walls = [\"x-\", \"y-\", \"y+\"]\n" : "")
       << "[time]\nend = 2.0\n"
       << "[output]\ndirectory = \"unused\"\ninterval = 2.0\n"
       << "[[material]]\nname = \"sand\"\nkind = \"sand\"\nfriction_angle = " << phi_deg << "\n"
       << sand_keys << "[[source]]\nmaterial = \"sand\"\nshape = \"heightfield\"\n"
       << "profile_x = [0.0, " << (slope.crest > 0 ? std::to_string(slope.crest) + ", " : "")
       << toe << "]\nprofile_height = [" << height << ", "
       << (slope.crest > 0 ? std::to_string(height) + ", " : "") << "0.0]\n";
  return parse_case_text(text.str(), "slope.toml");
}

double slope_crest_kept(double slope_deg, double phi_deg, const Slope& slope = {}) {
  Simulation sim(slope_case(slope_deg, phi_deg, slope), MPI_COMM_WORLD);
  const double cell = slope.cell;
  auto crest = [&] {
    const Particles& p = sim.particles();
    double top = 0;
    for (size_t n = 0; n < p.size(); ++n)
      if (p.x[n] < 2 * cell) top = std::max(top, p.z[n]);
    return global_max(sim.topology(), top);
  };
  const double at_start = crest();
  run_until(sim, 2.0);
  return crest() / at_start;
}

// The highest grain of each column of cells along x, on every rank.
std::vector<double> surface_profile(const Simulation& sim) {
  const double dx = sim.config().cell_size;
  std::vector<double> top(size_t(sim.config().cells[0]), 0.0);
  const Particles& p = sim.particles();
  for (size_t n = 0; n < p.size(); ++n) {
    double& column = top[size_t(p.x[n] / dx)];
    column = std::max(column, p.z[n]);
  }
  all_reduce_in_place(sim.topology(), top.data(), int64_t(top.size()), MPI_MAX);
  return top;
}

// How far the slope's surface moved (the largest change of a column's highest grain) from
// `from` to `to` seconds.
double slope_surface_moved(const CaseConfig& c, double from, double to) {
  Simulation sim(c, MPI_COMM_WORLD);
  run_until(sim, from);
  const std::vector<double> before = surface_profile(sim);
  run_until(sim, to);
  const std::vector<double> after = surface_profile(sim);
  double moved = 0;
  for (size_t n = 0; n < before.size(); ++n)
    moved = std::max(moved, std::abs(after[n] - before[n]));
  return moved;
}

// A bank of two sand materials (src/sand/sand_strength.hpp): a cut 0.2 m high against the
// x = 0 wall, as above, whose lower half is strong sand (phi 35, c = 2 kPa, 3.3 times the
// critical cohesion of its 0.1 m face under the weak layer's weight q, Culmann's
// (rho g h + 2 q) / (4 tan(45 + phi / 2)) = 613 Pa) and whose upper half is the weak sand of the
// cut above (phi 30) with `ratio` times the critical cohesion of a 0.1 m face, c_crit = rho g 0.1
// / (4 tan(60)) = 227 Pa. Each layer's particles carry their material, so each cell has its own
// layer's strength. How far each layer's face moved in `duration`.
struct LayerFaces {
  double weak = 0, strong = 0;  // m
};
constexpr double kLayerHeight = 0.1;

double max_x_of_material(const Simulation& sim, int material) {
  const Particles& p = sim.particles();
  double x = 0;
  for (size_t n = 0; n < p.size(); ++n)
    if (p.material[n] == material) x = std::max(x, p.x[n]);
  return global_max(sim.topology(), x);
}

LayerFaces layered_cut_faces_moved(const Cut& cut, double ratio) {
  const double critical_cohesion = rankine_critical_cohesion(kLayerHeight);
  CaseConfig c =
      sand_case(cut.domain, cut.cell, {0, 0, kLayerHeight},
                {cut.width, cut.domain[1], 2 * kLayerHeight}, kCutPhi, ratio * critical_cohesion);
  cut.model(c.materials[0]);
  test::add_strong_layer_under(c, kLayerHeight);
  c.wall_friction = 0.5;
  Simulation sim(c, MPI_COMM_WORLD);
  run_until(sim, cut.duration);
  return {max_x_of_material(sim, 0) - cut.width, max_x_of_material(sim, 1) - cut.width};
}

// Sand at rest stays at rest: a slope 3 degrees below phi keeps its crest for 2 s (the issue's
// bound, 99%), and one 5 degrees above phi fails and relaxes at least to the model's resting
// angle, for phi = 30 and 40. That angle is the resting block friction's, max(phi,
// atan(sqrt(3/2) sin(phi))), the dip of Culmann's planes (31.5 degrees for phi = 30, phi
// itself for 40; docs/findings/culmann_wedges_yield.md, "Resting sand no weaker than flowing
// sand"). A slope against the wall that relaxes to a straight one at that angle, its toe
// spreading and its area kept, keeps sqrt(tan(angle) / tan(phi + 5)) of its crest (0.936 for
// phi = 30, 0.916 for 40); the failed slope's crest must be no higher than that and a quarter
// cell (the crest is the top grain, a quarter cell below the surface). Measured (2 ranks):
// 1.000 below for both, 0.942 and 0.876 above (31.8 and 37.5 degrees; before resting grains
// held 0.846 and 0.811, the slopes running past both angles). Without Culmann's wedges the
// steep slopes kept 0.95 and 0.92, within these bounds: SandPlasticity.CulmannWedges* and
// ReleasedFace guard the wedges.
TEST(SandSlope, StandsBelowPhiFailsAbove) {
  constexpr double kQuarterCell = 0.25 * 0.01 / 0.1;  // of the slope's 0.1 m height
  for (double phi : {30.0, 40.0}) {
    const double below = slope_crest_kept(phi - 3, phi), above = slope_crest_kept(phi + 5, phi);
    RecordProperty("crest_kept_phi_" + std::to_string(int(phi)) + "_below",
                   std::to_string(below));
    RecordProperty("crest_kept_phi_" + std::to_string(int(phi)) + "_above",
                   std::to_string(above));
    const double sin_phi = std::sin(phi * M_PI / 180), tan_phi = std::tan(phi * M_PI / 180);
    const double resting_friction = std::max(tan_phi, std::sqrt(1.5) * sin_phi);
    const double relaxed = std::sqrt(resting_friction / std::tan((phi + 5) * M_PI / 180));
    EXPECT_GT(below, 0.99) << "phi " << phi;
    EXPECT_LT(above, relaxed + kQuarterCell) << "phi " << phi;
  }
}

// The same at a larger size, where the sand's friction alone holds the slope: 0.45 m high at
// 5 mm cells (90 cells), 3 degrees below phi = 40, in plane strain. A slope that tall needs
// a rule the small one did not: its surface cells, with air above and beside them, get a
// fraction of their weight as the projection's pressure, and weighed with that a few grains
// at the crest failed the yield test, started a sheet down the slope, and the slope ran to
// 33.3 degrees within 2 s (docs/findings/culmann_wedges_yield.md, "Slopes of the default
// model"; tests/benchmarks/slope_layer.cpp). The yield test now weighs a resting cell with at
// least its own weight (own_weight_pressure, src/sand/surface_rest.hpp). Measured: 0.9988 on
// 1 and 2 ranks; without the rule 0.924.
TEST(SandSlope, TallSlopeBelowPhiStands) {
  const double kept = slope_crest_kept(37.0, 40.0, {0.45, 0.005, true});
  RecordProperty("crest_kept", std::to_string(kept));
  EXPECT_GT(kept, 0.99);
}

// Sand at rest stays at rest: once a slope 2 degrees below phi = 30 has settled (1 s), no
// column of its surface moves by half a cell over the next 2 s. Loose grains on the slope's
// staircase (cells of one to three particles) failed Zhu & Bridson's test, whose stopping
// stress is a full cell's, and Culmann's wedges, and crept down it for as long as they were
// watched; a loose cell that has rested for sqrt(2 dx / g) now holds by its own sand
// (resting_grains_hold, src/sand/resting_grains.hpp). Measured: 1.06 mm on 1 and 2 ranks; with
// `resting_grains_hold = false` 4.99 mm (2 ranks).
TEST(SandSlope, LooseGrainsStayAtRestBelowPhi) {
  const Slope slope{0.1, 0.005, false};
  const double moved = slope_surface_moved(slope_case(28.0, 30.0, slope), 1.0, 3.0);
  RecordProperty("surface_moved_m", std::to_string(moved));
  EXPECT_LT(moved, 0.5 * slope.cell);
}

// The weak upper layer fails at its own Rankine height while the strong layer under it
// stands: at 0.8 and 0.9 c_crit the weak face runs further than its Rankine wedge is wide
// (0.1 tan(30) = 5.8 cm), and the strong face moves less than the strong layer's own wedge is
// wide (0.1 tan(27.5) = 5.2 cm; a failing layer runs out several times its wedge, as the cuts
// above do); at 1.25 c_crit neither face moves a cell (the bound of the cuts above). Were
// the cells given the first material's strength, the whole 0.2 m bank of weak sand would fail
// at 1.25 (it needs 2 c_crit); given the strong sand's, nothing would fail at 0.8. At 0.9 the
// failure once stalled after a cell (1.0 cm): the bulge the block pushed past the strong
// face, over air, stayed rigid and held it, until sand that hangs without cohesion fell
// (cohesive_wedges.hpp). Measured (2 ranks; 1 rank): the weak face 19.7 and 21.0 cm at 0.8
// and 0.9 (33.4 and 21.0), the strong 1.6 and 1.8 cm (the same: the debris falling past its
// top corner breaks the cohesion of a few cells there), 0.0 and 0.0 at 1.25.
TEST(LayeredBank, WeakUpperLayerFailsAtItsRankineHeight) {
  const Cut cut{0.01, {0.5, 0.04, 0.25}, 0.15, validated_model, 2.0};
  const LayerFaces held = layered_cut_faces_moved(cut, 1.25);
  RecordProperty("weak_face_moved_at_1.25_m", std::to_string(held.weak));
  RecordProperty("strong_face_moved_at_1.25_m", std::to_string(held.strong));
  EXPECT_LT(held.weak, cut.cell);
  EXPECT_LT(held.strong, cut.cell);
  for (double ratio : {0.8, 0.9}) {
    const LayerFaces failed = layered_cut_faces_moved(cut, ratio);
    const std::string at = "_at_" + std::to_string(ratio).substr(0, 3) + "_m";
    RecordProperty("weak_face_moved" + at, std::to_string(failed.weak));
    RecordProperty("strong_face_moved" + at, std::to_string(failed.strong));
    EXPECT_GT(failed.weak, kLayerHeight * std::tan(kCutPhi * M_PI / 180.0)) << "at " << ratio;
    EXPECT_LT(failed.strong, kLayerHeight * std::tan((45.0 - 35.0 / 2) * M_PI / 180.0))
        << "at " << ratio;
  }
}

// A cohesive slope of angle beta, 0.2 m high (phi = 30, rho = 1600), with a flat top 15 cm
// deep against the x = 0 wall (slope_case's slab of 1 cm cells, walls of mu 0.6): how far its toe
// moved in 2 s with `ratio` times Culmann's critical cohesion for a planar failure through the
// toe, c_crit = gamma H (1 - cos(beta - phi)) / (4 sin(beta) cos(phi)) (Terzaghi, "Theoretical
// Soil Mechanics", 1943; for beta = 90 it is Rankine's cut above).
double cohesive_slope_toe_moved(double beta_deg, double ratio) {
  const Slope slope{0.2, 0.01, false, 0.15};
  const double beta = beta_deg * M_PI / 180, phi = kCutPhi * M_PI / 180;
  const double critical_cohesion = 1600.0 * kGravity * slope.height * (1 - std::cos(beta - phi)) /
                                   (4 * std::sin(beta) * std::cos(phi));
  const std::string cohesion =
      "density = 1600.0\ncohesion = " + std::to_string(ratio * critical_cohesion) + "\n";
  Simulation sim(slope_case(beta_deg, kCutPhi, slope, cohesion), MPI_COMM_WORLD);
  const double toe_at_start = max_x(sim);
  run_until(sim, 2.0);
  return max_x(sim) - toe_at_start;
}

// Cohesion in another geometry than the cuts': slopes of 45, 60 and 75 degrees at 1.25 times
// Culmann's critical cohesion stand (the toe moves less than a cell) and at 0.8 times fail
// (the toe runs out more than two cells), the bracket for the cuts. Measured (2
// ranks, 60 degrees on 1 alike; the last cohesion that fails / the first that stands, times
// c_crit): 45 degrees 0.95 / 1.0, 60 degrees 1.15 / 1.25, 75 degrees 1.0 / 1.05. The block
// friction is eq. 2's resting one (31.5 degrees, as for the cuts), for which Culmann's cohesion
// is 0.83 / 0.92 / 0.95 of the classical one at 45 / 60 / 75 degrees. With the runway beyond the
// toe 25 cm instead of slope_case's 10 (a case written out by hand) the 60-degree slope stood
// from 1.1: where a cohesive failure starts likely depends on small motions (docs/findings/
// culmann_wedges_yield.md, "Round cohesive columns").
TEST(CohesiveSlope, FailsAtCulmannsCriticalCohesion) {
  for (double beta : {45.0, 60.0, 75.0}) {
    const double stands = cohesive_slope_toe_moved(beta, 1.25);
    const double fails = cohesive_slope_toe_moved(beta, 0.8);
    const std::string angle = std::to_string(int(beta));
    RecordProperty("toe_moved_at_1.25_critical_cohesion_m_beta_" + angle, std::to_string(stands));
    RecordProperty("toe_moved_at_0.8_critical_cohesion_m_beta_" + angle, std::to_string(fails));
    EXPECT_LT(stands, 0.01) << "beta " << beta;
    EXPECT_GT(fails, 0.02) << "beta " << beta;
  }
}

// A round column of cohesive sand, radius `radius`, 0.2 m high (phi = 30, rho = 1600; a floor
// of mu 0.5, 1 cm cells), with `ratio` times the critical cohesion of a vertical cut of its
// height (Rankine's, 453 Pa): the share of its grains that lie further than `beyond` from its
// rim after 2 s. `quarter`: a quarter of it, on the corner of two frictionless walls; else the
// whole column in the middle of the floor.
double round_column_share_beyond(double radius, double ratio, double beyond, bool quarter) {
  const double critical_cohesion = rankine_critical_cohesion(kCutHeight);
  const double side = quarter ? radius + 0.3 : 2 * (radius + 0.25);
  const double centre = quarter ? 0.0 : side / 2;
  std::ostringstream text;
  text << "[case]\nname = \"round_column\"\n[domain]\nsize = [" << side << ", " << side
       << ", 0.25]\ncell_size = 0.01\nwall_friction = 0.5\n"
       << (quarter ? "frictionless_walls = [\"x-\", \"y-\"]\n" : "") << "[time]\nend = 2.0\n"
       << "[output]\ndirectory = \"unused\"\ninterval = 2.0\n"
       << "[[material]]\nname = \"sand\"\nkind = \"sand\"\ndensity = 1600.0\nfriction_angle = "
       << kCutPhi << "\ncohesion = " << ratio * critical_cohesion << "\n"
       << "[[source]]\nmaterial = \"sand\"\nshape = \"cylinder\"\ncenter = [" << centre << ", "
       << centre << ", 0.0]\nradius = " << radius << "\nheight = " << kCutHeight << "\n";
  Simulation sim(parse_case_text(text.str(), "round_column.toml"), MPI_COMM_WORLD);
  run_until(sim, 2.0);
  const Particles& p = sim.particles();
  int64_t out = 0;
  for (size_t n = 0; n < p.size(); ++n)
    out += std::hypot(p.x[n] - centre, p.y[n] - centre) > radius + beyond;
  return double(global_sum(sim.topology(), out)) /
         double(global_sum(sim.topology(), int64_t(p.size())));
}

// Cohesion in three dimensions: round columns 0.2 m high stand for 2 s at 1.25 times the
// critical cohesion of a vertical cut of their height (fewer than one grain in a thousand
// moves out by a cell) and fail at 0.8 times it (more than one in a thousand runs out further
// than the cut's Rankine wedge is wide, 11.5 cm), the cut's bracket: a quarter of one 0.5 m
// across, and a whole one 0.2 m across, whose rim's short chords the test's slices weigh as
// free-standing walls until the sand beside them holds them (cohesive_wedges.hpp). A round
// face is no weaker than a straight one, and the best planar mechanism out of the slender
// column (an ungula) needs 0.84 of the cut's cohesion. Measured (2 ranks; docs/findings/
// culmann_wedges_yield.md, "Round cohesive columns"): both fail at 0.8 and stand from 1.0.
// Until the wedges counted a face's exits in whole cells the wide column slumped at up to 4
// times; until the slices' sides held, the slender one at 1.25.
TEST(RoundCohesiveColumn, StandsAndFailsWhereACutOfItsHeightDoes) {
  for (const auto& [radius, quarter] : {std::pair{0.25, true}, std::pair{0.1, false}}) {
    const double moved = round_column_share_beyond(radius, 1.25, 0.01, quarter);
    const double ran_out = round_column_share_beyond(radius, 0.8, kCutWedgeWidth, quarter);
    const std::string body = std::string(quarter ? "quarter" : "whole") + "_column_radius_" +
                             std::to_string(int(std::lround(100 * radius))) + "_cm";
    RecordProperty("share_moved_a_cell_at_1.25_critical_cohesion_" + body, std::to_string(moved));
    RecordProperty("share_beyond_the_wedge_at_0.8_critical_cohesion_" + body,
                   std::to_string(ran_out));
    EXPECT_LT(moved, 1e-3) << body;
    EXPECT_GT(ran_out, 1e-3) << body;
  }
}

// The slender column's quarter, in the corner of two symmetry walls (frictionless_walls), is
// the whole column: the wedges' planes go on through the walls into its mirror image
// (cohesive_wedges.hpp), so it stands at 1.25 and fails at 0.8 as the whole one does above.
// Until the walls were mirrors, a plane that met one held and the quarter stood at 0.8.
// Measured (1 and 2 ranks): 16.0 cm of runout at 0.8, none at 1.0 and 1.25. Its fast sibling
// is CohesiveWedges.AQuarterAgainstSymmetryWallsSlidesWhereTheWholeBodyDoes.
TEST(RoundCohesiveColumn, QuarterAgainstSymmetryWallsStandsAndFailsAsTheWholeDoes) {
  const double moved = round_column_share_beyond(0.1, 1.25, 0.01, true);
  const double ran_out = round_column_share_beyond(0.1, 0.8, kCutWedgeWidth, true);
  RecordProperty("share_moved_a_cell_at_1.25_critical_cohesion", std::to_string(moved));
  RecordProperty("share_beyond_the_wedge_at_0.8_critical_cohesion", std::to_string(ran_out));
  EXPECT_LT(moved, 1e-3);
  EXPECT_GT(ran_out, 1e-3);
}

// A block of cohesive sand 0.2 m high with a cantilever 10 cm long and 5 cm thick off its face,
// 10 to 15 cm up (phi = 30, rho = 1600, 1 cm, a slab 4 cells thick), with `ratio` times the
// cohesion the cantilever's root needs to carry its weight in shear, c = rho g L = 1570 Pa
// (src/sand/overhangs.hpp); the block needs only Rankine's 453 Pa. After 1 s: how many grains
// lie under where the cantilever was, and how far the block's sand above it (over 16 cm)
// reaches.
struct OverhangAfter {
  int64_t grains_below = 0;
  double block_top_reach = 0;  // m
};
OverhangAfter cantilever_after(double ratio) {
  const double root_critical = 1600.0 * kGravity * 0.1;
  std::ostringstream text;
  text << "[case]\nname = \"overhang\"\n[domain]\nsize = [0.5, 0.04, 0.25]\ncell_size = 0.01\n"
       << "wall_friction = 0.5\n[time]\nend = 1.0\n[output]\ndirectory = \"unused\"\n"
       << "interval = 1.0\n[[material]]\nname = \"sand\"\nkind = \"sand\"\ndensity = 1600.0\n"
       << "friction_angle = " << kCutPhi << "\ncohesion = " << ratio * root_critical << "\n"
       << "[[source]]\nmaterial = \"sand\"\nshape = \"block\"\nmin = [0.0, 0.0, 0.0]\n"
       << "max = [0.15, 0.04, 0.2]\n[[source]]\nmaterial = \"sand\"\nshape = \"block\"\n"
       << "min = [0.15, 0.0, 0.1]\nmax = [0.25, 0.04, 0.15]\n";
  Simulation sim(parse_case_text(text.str(), "overhang.toml"), MPI_COMM_WORLD);
  run_until(sim, 1.0);
  const Particles& p = sim.particles();
  int64_t below = 0;
  double reach = 0;
  for (size_t n = 0; n < p.size(); ++n) {
    below += p.x[n] > 0.16 && p.x[n] < 0.25 && p.z[n] < 0.09;
    if (p.z[n] > 0.16) reach = std::max(reach, p.x[n]);
  }
  return {global_sum(sim.topology(), below), global_max(sim.topology(), reach)};
}

// An overhang hangs on the cohesion of the vertical plane at its root: the cantilever falls
// at 0.8 times the root's cohesion (more than 500 of its 1600 grains end under it) and hangs
// at 1.25 (none), and the block it hangs from stands either way (its sand above the
// cantilever still reaches the face, within a cell). Measured (1 and 2 ranks): 1257 grains
// under it at 0.8, none at 1.25, the face kept at both. Before, any cohesion that held the
// block held the cantilever; with its fall, the block's face lost its cohesion cell by cell
// (sand at rest beside moving sand counted as shearing) and the block slumped at 2.8 times
// Rankine's cohesion (docs/findings/culmann_wedges_yield.md, "Overhangs").
TEST(CohesiveOverhang, FallsWhereItsRootCannotCarryItsWeightAndTheBlockStands) {
  const OverhangAfter falls = cantilever_after(0.8), hangs = cantilever_after(1.25);
  RecordProperty("grains_below_at_0.8", std::to_string(falls.grains_below));
  RecordProperty("grains_below_at_1.25", std::to_string(hangs.grains_below));
  RecordProperty("block_top_reach_at_0.8_m", std::to_string(falls.block_top_reach));
  RecordProperty("block_top_reach_at_1.25_m", std::to_string(hangs.block_top_reach));
  EXPECT_GT(falls.grains_below, 500);
  EXPECT_EQ(hangs.grains_below, 0);
  EXPECT_GT(falls.block_top_reach, 0.14);
  EXPECT_GT(hangs.block_top_reach, 0.14);
}

// The same cut of elastic-plastic sand (src/sand/elastic_plastic_sand.hpp), whose stress
// carries the sand's weight. Its yield surface is Mohr-Coulomb's in plane strain, which this
// slab is. The model is held to 1.0-1.4 times Rankine's: with 1.4 c_crit the face stands, with
// 0.7 c_crit it slumps. Measured when this was written (0.5 s, 1 cm cells): the face moved
// 0.04 cm at 2 c_crit, 0.1 cm at 1.4 c_crit, 1.1 cm at c_crit, 5.5 cm at 0.7 c_crit and
// 7.5 cm at c_crit / 2.
TEST(VerticalCut, ElasticPlasticBracketsRankineCriticalHeight) {
  const Cut cut{0.01, {0.5, 0.04, 0.25}, 0.15, elastic_plastic, 0.5};
  const double strong = cut_face_moved(cut, 1.4), weak = cut_face_moved(cut, 0.7);
  RecordProperty("face_moved_at_1.4_critical_cohesion_m", std::to_string(strong));
  RecordProperty("face_moved_at_0.7_critical_cohesion_m", std::to_string(weak));
  // Stands: the face moved less than half a cell (the elastic bulge is a tenth of that).
  EXPECT_LT(strong, 0.5 * cut.cell);
  // Slumps: the failing wedge spreads its toe by 3+ cells.
  EXPECT_GT(weak, 3 * cut.cell);
}

// Its fast sibling at 2 cm cells, 2 and 0.5 c_crit. Measured (1 and 2 ranks pass): the face
// moved 0.12 cm at 2 c_crit and 8.9 cm at c_crit / 2; with the cohesion in the elastic-plastic
// yield test halved, 3.1 cm at 2 c_crit, which fails here as it fails the finer bracket.
TEST(VerticalCut, ElasticPlasticCoarseCutBracketsRankineCriticalHeight) {
  const Cut cut{0.02, {0.5, 0.08, 0.26}, 0.16, elastic_plastic, 0.5};
  const double strong = cut_face_moved(cut, 2.0), weak = cut_face_moved(cut, 0.5);
  EXPECT_LT(strong, 0.5 * cut.cell);
  EXPECT_GT(weak, 2 * cut.cell);
}

// A block slumping onto a layer in a slab, with the APIC transfer: the deposit comes to
// rest. Zhu & Bridson's frictional stress has a fixed size whatever the strain rate, so
// applied once per step it overshoots on grid-scale motions and drives them back the next
// step; APIC keeps that chatter (95% PIC damps it), which held cells yielding and spent the
// friction that should stop the flow. Friction substeps, each re-reading the strain rate,
// end it (docs/findings/friction_substeps.md).
TEST(ApicDeposit, ComesToRestWithFrictionSubsteps) {
  auto share_moving = [](int substeps) {
    CaseConfig c =
        sand_case({0.6, 0.04, 0.12}, 0.01, {0.0, 0.0, 0.0}, {0.6, 0.04, 0.05}, 30.0, 0.0);
    SourceSpec block = c.sources[0];
    block.shape.min = {0.25, 0.0, 0.05};
    block.shape.max = {0.35, 0.04, 0.12};
    c.sources.push_back(block);
    c.wall_friction = 0.6;
    c.frictionless_wall = {true, true, true, true, false, false};
    c.materials[0].transfer = Transfer::Apic;
    c.materials[0].rheology.friction_substeps = substeps;
    Simulation sim(c, MPI_COMM_WORLD);
    run_until(sim, 2.0);
    const Particles& p = sim.particles();
    int64_t moving = 0;
    for (size_t n = 0; n < p.size(); ++n) moving += p.speed(n) > kRestSpeed;
    return double(global_sum(sim.topology(), moving)) /
           double(global_sum(sim.topology(), int64_t(p.size())));
  };
  const double shipped = share_moving(0), once_a_step = share_moving(1);
  RecordProperty("share_moving", std::to_string(shipped));
  RecordProperty("share_moving_once_a_step", std::to_string(once_a_step));
  // kRestSpeed is a sixth of g dt mu (the floor's rest speed in src/sand/surface_rest.hpp at the
  // 10 ms step). Measured at 2 s, 1 rank: the 99th percentile speed 0.3 mm/s with the
  // default 8 substeps, 55 mm/s with one (1.2% of the grains above 5 cm/s, random in
  // direction), where the deposit's shape no longer changed.
  EXPECT_LT(shipped, 0.01);
  EXPECT_GT(once_a_step, 0.01);
}

// A layer two cells thick slides at 0.5 m/s on a bed of sand tilted 20 degrees, with the
// APIC transfer: friction stops it. Eq. 2's friction in simple shear, tan(31.5 degrees)
// for phi = 30 (docs/findings/sand.md), decelerates it at g (0.613 cos 20 - sin 20) =
// 2.3 m/s^2, to rest by 0.22 s; it is checked at 0.6 s. The bed's top row takes the
// flow's reaction; while the friction's substeps let that reaction move the row along with
// the layer, the shear between them vanished and the layer slid on at 4 cm/s.
TEST(ApicLayerOnSandBed, StopsBelowTheFrictionAngle) {
  constexpr double kCell = 0.01, kBedTop = 0.04, kTilt = 20.0 * M_PI / 180.0;
  CaseConfig c = sand_case({1.0, 4 * kCell, 0.12}, kCell, {0.0, 0.0, 0.0},
                           {1.0, 4 * kCell, kBedTop}, 30.0, 0.0);
  SourceSpec layer = c.sources[0];
  layer.shape.min = {0.05, 0.0, kBedTop};
  layer.shape.max = {0.35, 4 * kCell, kBedTop + 2 * kCell};
  c.sources.push_back(layer);
  c.wall_friction = 0.6;
  c.frictionless_wall = {true, true, true, true, false, false};
  c.materials[0].transfer = Transfer::Apic;
  c.gravity = {kGravity * std::sin(kTilt), 0.0, -kGravity * std::cos(kTilt)};
  Simulation sim(c, MPI_COMM_WORLD);
  Particles& p = sim.particles();
  for (size_t n = 0; n < p.size(); ++n)
    if (p.z[n] > kBedTop) p.vx[n] = 0.5f;
  run_until(sim, 0.6);
  double speed_sum = 0;
  int64_t count = 0;
  for (size_t n = 0; n < p.size(); ++n)
    if (p.z[n] > kBedTop) {
      speed_sum += p.speed(n);
      ++count;
    }
  const double mean_speed =
      global_sum(sim.topology(), speed_sum) / double(global_sum(sim.topology(), count));
  RecordProperty("layer_mean_speed_m_per_s", std::to_string(mean_speed));
  // Measured on 1 and 2 ranks: 2.8 mm/s (grains in the top half cell of the bed still
  // shift; 5.6 mm/s before the boundary edges of the stress divergence carried no flux);
  // 43 mm/s with the reaction added within the substeps.
  EXPECT_LT(mean_speed, kRestSpeed);
}

// A block of dry sand 10 cm wide and 5 cm high against a symmetry wall, its other face
// released, in a slab 4 cells thick between frictionless walls (plane strain), floor mu 0.6,
// 5 mm cells, the default transfer: the mean vertical velocity of the grains above the
// Rankine plane (rising from the foot at 45 + phi / 2 = 60 degrees) 0.02 s after release.
double released_wedge_vertical_speed(bool culmann_wedges_yield) {
  constexpr double kWidth = 0.1, kRankine = 60.0 * M_PI / 180.0;
  CaseConfig c = sand_case({0.2, 0.02, 0.08}, 0.005, {0, 0, 0}, {kWidth, 0.02, 0.05}, 30.0, 0.0);
  c.wall_friction = 0.6;
  c.frictionless_wall = {true, false, true, true, false, false};
  c.materials[0].rheology.culmann_wedges_yield = culmann_wedges_yield;
  Simulation sim(c, MPI_COMM_WORLD);
  run_until(sim, 0.02);
  const Particles& p = sim.particles();
  double sum[2] = {0, 0};  // vertical velocity, grains
  for (size_t n = 0; n < p.size(); ++n)
    if (p.x[n] > kWidth - p.z[n] / std::tan(kRankine)) {
      sum[0] += p.vz[n];
      sum[1] += 1;
    }
  global_sum_in_place(sim.topology(), sum, 2);
  return -sum[0] / sum[1];
}

// A released vertical face of cohesionless sand fails at once: the wedge in front of the
// Rankine plane slides like a Coulomb block on that plane, whose vertical acceleration is
// g (sin 60 - mu cos 60) sin 60 = 4.75 m/s^2 with eq. 2's friction in plane strain, mu =
// tan(31.5 degrees) (docs/findings/sand.md), so 0.095 m/s at 0.02 s. Zhu & Bridson's test
// keeps sand at rest rigid (sigma_rigid vanishes), and the face only peels. Measured when
// this was written (1 rank): 0.083 m/s (0.87 of the block) with culmann_wedges_yield, 0.014
// (0.15) without; under APIC 0.106 and 0.017. The wedge is not rigid (its grains by the face
// fall ahead of the block, those by the plane lag it), hence the bound at 0.6 of the block.
TEST(ReleasedFace, CulmannWedgeSlidesLikeACoulombBlock) {
  const double block =
      9.81 * (std::sin(M_PI / 3) - std::tan(31.5 * M_PI / 180) * 0.5) * std::sin(M_PI / 3) * 0.02;
  const double culmann = released_wedge_vertical_speed(true);
  const double paper = released_wedge_vertical_speed(false);
  RecordProperty("wedge_speed_culmann", std::to_string(culmann));
  RecordProperty("wedge_speed_zhu_bridson", std::to_string(paper));
  EXPECT_GT(culmann, 0.6 * block);
  EXPECT_LT(paper, 0.6 * block);
}

// A quarter cone of sand (friction angle `phi_deg`), `slope_deg` steep and `radius` m (0.1) at
// its base, in the corner of two symmetry planes on a floor of mu 0.6, built as the grid's
// staircase: discs (quarter cylinders) one 5 mm cell high, each a slope's run narrower than
// the one below. `levels`: how many discs.
struct StaircaseCone {
  CaseConfig config;
  double cell = 0.005;  // m
  int levels = 0;
};
StaircaseCone staircase_cone(double phi_deg, double slope_deg, double domain_height,
                             double radius = 0.1) {
  StaircaseCone cone;
  const double cell = cone.cell, slope = slope_deg * M_PI / 180.0;
  CaseConfig c = sand_case({0.15, 0.15, domain_height}, cell, {0.0, 0.0, 0.0}, {cell, cell, cell},
                           phi_deg, 0.0);
  const SourceSpec first = c.sources[0];
  c.sources.clear();
  cone.levels = int(radius * std::tan(slope) / cell);
  for (int level = 0; level < cone.levels; ++level) {
    SourceSpec disc = first;
    disc.shape.kind = ShapeSpec::Kind::Cylinder;
    disc.shape.center = {0.0, 0.0, level * cell};
    disc.shape.radius = radius - (level + 0.5) * cell / std::tan(slope);
    disc.shape.height = cell;
    c.sources.push_back(disc);
  }
  c.wall_friction = 0.6;
  c.frictionless_wall = {true, false, true, false, false, false};
  cone.config = c;
  return cone;
}

// The cone 27 degrees steep, 3 below phi = 30, under APIC: the share of its summit's grains
// (those above 0.6 of its height at the start) still above that height after 1.5 s.
double apic_cone_summit_kept(bool rigid_cells_own_velocity, bool culmann = false,
                             double slope_deg = 27.0, double duration = 1.5) {
  StaircaseCone cone = staircase_cone(30.0, slope_deg, 0.08);
  CaseConfig& c = cone.config;
  c.materials[0].transfer = Transfer::Apic;
  c.materials[0].rheology.rigid_cells_own_velocity = rigid_cells_own_velocity;
  c.materials[0].rheology.culmann_wedges_yield = culmann;
  Simulation sim(c, MPI_COMM_WORLD);
  const double summit_base = 0.6 * cone.levels * cone.cell;
  auto grains_above = [&] {
    const Particles& p = sim.particles();
    int64_t above = 0;
    for (size_t n = 0; n < p.size(); ++n) above += p.z[n] > summit_base;
    return double(global_sum(sim.topology(), above));
  };
  const double at_start = grains_above();
  run_until(sim, duration);
  return grains_above() / at_start;
}

// The staircase cone with the default model, its base `radius` m, its particles' jitter seeded
// by `seed`: the height of its summit, the highest grain within two cells of its axis, after
// 2 s over its height at the start.
double resting_cone_summit_kept(double phi_deg, double slope_deg, uint64_t seed = 1,
                                double radius = 0.1) {
  StaircaseCone cone = staircase_cone(phi_deg, slope_deg, 0.1, radius);
  test::validated_model(cone.config.materials[0]);
  cone.config.seed = seed;
  Simulation sim(cone.config, MPI_COMM_WORLD);
  auto summit = [&] {
    const Particles& p = sim.particles();
    double top = 0;
    for (size_t n = 0; n < p.size(); ++n)
      if (std::hypot(p.x[n], p.y[n]) < 2 * cone.cell) top = std::max(top, p.z[n]);
    return global_max(sim.topology(), top);
  };
  const double at_start = summit();
  run_until(sim, 2.0);
  return summit() / at_start;
}

// Sand at rest stays at rest, in three dimensions: a cone 3 degrees below phi = 30 keeps 99%
// of its summit for 2 s (the requirement), and one 5 degrees above phi fails, its summit lower
// by more than a cell (10%). The cone's circular steps are a staircase whose risers the
// surface's 3x3x3 reading takes for 45-degree slopes; the rest rule takes the flatter of that
// and a reading over 5 cells (src/sand/surface_rest.hpp). The summit is the top disc, 1.4
// cells across, and the jitter of a dozen grains decides what its loose grains do, so the
// cone below phi is built with five seeds, each of which must keep 99%: 1 to 3, and 14 and 20,
// at which the summit sank by a quarter of a cell (0.980 and 0.973) while its resting cells'
// grains were advected through the grid's trilinear stencil, which dragged them along with
// the loose grains rolling off beside them; with the flux through their own cell's faces
// (src/transfer/transfer.cpp, advect_in_own_cell) all of seeds 1 to 20 keep it (0.9967-1.0164,
// 2 ranks). Before the yield test weighed a resting cell with its own weight
// (own_weight_pressure), 5 of seeds 1 to 10 kept it (0.992-1.001), one 0.985 and four lost the
// summit's cell (0.90). With the 3x3x3 reading alone the cone below phi lost a cell of its
// summit (0.90) at seed 1, and the grains above 0.6 of its height shrank by 18% over the 2 s.
TEST(RestingCone, KeepsItsSummitBelowPhiFailsAbove) {
  const std::vector<uint64_t> seeds{1, 2, 3, 14, 20};
  std::vector<double> below;
  for (uint64_t seed : seeds) below.push_back(resting_cone_summit_kept(30.0, 27.0, seed));
  const double above = resting_cone_summit_kept(30.0, 35.0);
  const double least = *std::min_element(below.begin(), below.end());
  RecordProperty("summit_kept_27_deg_least", std::to_string(least));
  RecordProperty("summit_kept_35_deg", std::to_string(above));
  if (test::world_rank() == 0)
    std::printf(
        "cone summit kept after 2 s, 27 degrees, seeds 1 2 3 14 20: %.4f %.4f %.4f %.4f %.4f; "
        "35 degrees %.4f (phi 30)\n",
        below[0], below[1], below[2], below[3], below[4], above);
  EXPECT_GT(least, 0.99);
  EXPECT_LT(above, 0.9);
}

// The same for steep sand, phi = 40: the cone at 37 degrees keeps 99% of its summit for 2 s
// and one at 45 fails. Its base is 0.103 m across so that its top disc is 1.36 cells in
// radius, as the phi = 30 cone's at 27 degrees: with the 0.1 m base a 37-degree cone's top
// disc is 0.76 cells in radius, a sliver of a few grains on a column one cell high, which no
// sand holds (it kept 0.943-0.963 at seeds 1 to 4, with Culmann's wedges off or every slow
// surface cell resting alike). Measured when this was written: 1.0007 0.9999 1.0023 at
// seeds 1 to 3 (1.0078 at 4), and 0.751 at 45 degrees (0.79-0.80 at seeds 2 to 4).
TEST(RestingCone, SteepSandKeepsItsSummitBelowPhiFailsAbove) {
  constexpr double kPhi = 40.0, kRadius = 0.103;
  std::vector<double> below;
  for (uint64_t seed : {1, 2, 3})
    below.push_back(resting_cone_summit_kept(kPhi, 37.0, seed, kRadius));
  const double above = resting_cone_summit_kept(kPhi, 45.0, 1, kRadius);
  if (test::world_rank() == 0)
    std::printf(
        "cone summit kept after 2 s, 37 degrees, seeds 1 2 3: %.4f %.4f %.4f; 45 degrees "
        "%.4f (phi 40)\n",
        below[0], below[1], below[2], above);
  EXPECT_GT(*std::min_element(below.begin(), below.end()), 0.99);
  EXPECT_LT(above, 0.9);
}

// A slope below phi stands under APIC when the particles of rigid cells move with their
// cluster's fitted motion (rigid_cell_velocity = "own_cell"). Read from the grid instead,
// the faces beside open and flowing cells, which the second projection changes after the
// fit, carry the surface's grains off a cluster at rest, and the summit creeps down
// (docs/findings/rigid_cells_move_with_their_cluster.md).
TEST(ApicCone, StandsBelowTheFrictionAngle) {
  const double own = apic_cone_summit_kept(true), interpolated = apic_cone_summit_kept(false);
  RecordProperty("summit_kept_own_cell", std::to_string(own));
  RecordProperty("summit_kept_interpolated", std::to_string(interpolated));
  // A Coulomb slope below phi keeps all of it. Measured: 0.993 with the cluster's motion
  // and 0.573 interpolated on 1 and 2 ranks (0.945 and 0.39-0.41 before the surface's slope
  // was read over 5 cells as well); when this test was written, 0.896 reading the own cell's
  // faces after the second projection, and at 28 degrees the motion kept 0.82 and
  // interpolation 0.35, at 26 0.988 and 0.65, at 25 both 0.998.
  EXPECT_GT(own, 0.92);
  EXPECT_LT(interpolated, 0.92);
}

// A column of dry sand slumps into a heap that comes to rest: between 2 and 3 s after the
// release its mass does not move outward. Zhu & Bridson's yield test alone lets the top cell
// of every riser of the surface's staircase yield each step, and the heap creeps flat
// (postproc/column_collapse_findings.md, "Why Zhu & Bridson deposits creep"); the surface's
// static friction on its slope (src/sand/surface_rest.hpp) holds it.
TEST(SlumpedColumn, ComesToRest) {
  constexpr double kCell = 0.01;
  constexpr int kRings = 15;
  CaseConfig c =
      sand_case({0.3, 0.3, 0.2}, kCell, {0.12, 0.12, 0.0}, {0.18, 0.18, 0.15}, 30.0, 0.0);
  c.wall_friction = 0.6;
  Simulation sim(c, MPI_COMM_WORLD);
  run_until(sim, 2.0);
  // Rings one cell wide around the column's axis, x = y = 0.15 m.
  const std::vector<double> slumped = test::mass_within_rings(sim, 0.15, 0.15, kCell, kRings);
  run_until(sim, 3.0);
  const std::vector<double> later = test::mass_within_rings(sim, 0.15, 0.15, kCell, kRings);
  const double moved = test::largest_ring_difference(slumped, later, kRings);
  RecordProperty("largest_ring_share_change", std::to_string(moved));
  // Less than the deposit changes with another seed of the particles' jitter (0.8%, see
  // test_sand_column_ranks). Measured, the largest ring's change per half second from 1 s
  // on, 1 rank: 0.42 0.56 0.09 0.09 0.25 0.07%; 1.8 1.7 1.4 1.0 1.3 1.2% without the
  // surface's static friction, whose 2-3 s window then reads 2.6%. The test reads 0.12% on
  // 1 and 2 ranks. The window began at 1 s
  // until the boundary edges of the stress divergence stopped braking the flows
  // (src/sand/sand_plasticity.cpp): the slump's last avalanche now runs until 2 s (0.30 0.12 0.07
  // 0.02% per half second before).
  EXPECT_LT(moved, 0.008);
}

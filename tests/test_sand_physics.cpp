// Physics of the sand model against analytic results (1 and 2 ranks).
#include <gtest/gtest.h>

#include <cmath>

#include "decomposition/reductions.hpp"
#include "src/simulation.hpp"
#include "tests/scenes.hpp"

using namespace dunesim;

namespace {

constexpr double kGravity = 9.81;

CaseConfig sand_case(Vec3 domain, double cell, Vec3 lo, Vec3 hi, double friction_angle,
                     double cohesion) {
  CaseConfig c = test::water_box_case(domain, cell, lo, hi, 1.0);
  MaterialSpec& sand = c.materials[0];
  sand.name = "sand";
  sand.kind = MaterialKind::Sand;
  sand.density = 1600;
  sand.flip_ratio = 0.05;
  sand.friction_angle_deg = friction_angle;
  sand.cohesion = cohesion;
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
// down-slope velocity after `duration`.
double slide_velocity(double theta_deg, double mu, double duration) {
  const double theta = theta_deg * M_PI / 180.0;
  CaseConfig c =
      sand_case({0.6, 0.1, 0.1}, 0.01, {0.05, 0.02, 0.0}, {0.15, 0.08, 0.04}, 40.0, 5000.0);
  c.wall_friction = mu;
  c.gravity = {kGravity * std::sin(theta), 0.0, -kGravity * std::cos(theta)};
  c.max_dt = 0.002;
  Simulation sim(c, MPI_COMM_WORLD);
  while (sim.time() < duration - 1e-12)
    sim.step(std::min(sim.stable_dt(), duration - sim.time()));
  return mean_over_particles(sim, [](const Particles& p, size_t n) { return p.vx[n]; });
}

}  // namespace

// Below the friction angle atan(mu) the block stays put.
TEST(InclinedPlane, BlockStaysBelowFrictionAngle) {
  const double mu = 0.5;  // atan(mu) = 26.6 degrees
  const double v = slide_velocity(20.0, mu, 0.2);
  RecordProperty("velocity_m_per_s", std::to_string(v));
  // A block that slid freely would reach g sin(20 deg) t = 0.67 m/s; allow 1% of that.
  EXPECT_LT(std::abs(v), 0.0067);
}

// Above it the block slides with a = g (sin theta - mu cos theta).
TEST(InclinedPlane, BlockSlidesWithCoulombAcceleration) {
  const double mu = 0.5, theta_deg = 35.0, duration = 0.2;
  const double theta = theta_deg * M_PI / 180.0;
  const double expected = kGravity * (std::sin(theta) - mu * std::cos(theta)) * duration;
  const double v = slide_velocity(theta_deg, mu, duration);
  RecordProperty("velocity_m_per_s", std::to_string(v));
  // 5%: the normal force comes from the projection pressure at the centres of the cells on
  // the floor, half a cell above the contact (measured: 0.2% off when this was written).
  EXPECT_NEAR(v, expected, 0.05 * expected);
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

void run_until(Simulation& sim, double t_end) {
  while (sim.time() < t_end - 1e-12) sim.step(std::min(sim.stable_dt(), t_end - sim.time()));
}

}  // namespace

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

// A vertical cut: a block against the left wall with a free face on its right. With enough
// cohesion the face stands (Mohr-Coulomb: a vertical cut of height H in cohesive soil stands
// while c exceeds roughly rho g H / 4; here rho g H = 3.1 kPa and c = 5 kPa); without
// cohesion the face slumps.
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

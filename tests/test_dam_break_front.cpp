// Physics validation: the surge front of a collapsing water column against the measurements
// of Martin & Moyce (1952), "An experimental study of the collapse of liquid columns on a
// rigid horizontal plane", Phil. Trans. R. Soc. A 244, fig. 3, column n^2 = 2 (height 2a),
// a = 2.25 in: front position Z = x/a against T = t sqrt(2 g / a).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "decomposition/reductions.hpp"
#include "src/driver/simulation.hpp"
#include "tests/scenes.hpp"

using namespace dunesim;

namespace {

struct Measurement {
  double T, Z;
};
// Martin & Moyce (1952), fig. 3, n^2 = 2, a = 2.25 in, in the digitisation that simulation
// codes reproduce (PySPH's examples/db_exp_data.py has the same numbers), up to T = 3.345.
// That digitisation goes on to T = 9.2, but from (4.034, 4.944) to (4.418, 5.881) its front
// runs at dZ/dT = 2.4, faster than a collapsing column can: the inviscid surge over a dry
// bed (Ritter) runs at 2 sqrt(g h) with h = 2a, dZ/dT = 2 in these units, and friction only
// slows it. From 3.345 to 4.034 it runs at 1.2, as far below its neighbours (1.4 to 1.6):
// the point at T = 4.034 is misplaced. The test reads the table up to T = 3.
const std::vector<Measurement> kMartinMoyce = {
    {0.832, 1.217}, {1.219, 1.474}, {1.997, 2.292}, {2.547, 2.995}, {3.345, 4.134}};
constexpr double kDryBedFrontSpeed = 2.0;  // dZ/dT of Ritter's front

// The measured Z at T, interpolated linearly; T must lie within the table.
double measured_front(double T) {
  for (size_t n = 1; n < kMartinMoyce.size(); ++n)
    if (T >= kMartinMoyce[n - 1].T && T <= kMartinMoyce[n].T) {
      const Measurement &a = kMartinMoyce[n - 1], &b = kMartinMoyce[n];
      return a.Z + (b.Z - a.Z) * (T - a.T) / (b.T - a.T);
    }
  ADD_FAILURE() << "T = " << T << " lies outside the measurements";
  return std::nan("");
}

// Front: the x that 99% of the water has not passed. The leading 1% is the thin tongue
// (about one cell thick) and droplets ahead of the surge; the experiment photographed the
// continuous surge.
double front_position(const Simulation& sim) {
  const std::vector<double> x(sim.particles().x.begin(), sim.particles().x.end());
  const int64_t total = global_sum(sim.topology(), int64_t(x.size()));
  const int64_t ahead = total / 100;
  // Bisection on the position: count particles beyond a candidate front on all ranks.
  double lo = 0, hi = sim.config().domain_size[0];
  for (int it = 0; it < 40; ++it) {
    double mid = 0.5 * (lo + hi);
    int64_t beyond = 0;
    for (double v : x) beyond += v > mid;
    if (global_sum(sim.topology(), beyond) > ahead)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

// The measurements themselves: no step of the front is faster than the dry-bed surge.
TEST(DamBreakFront, MeasurementsAreNoFasterThanTheDryBedSurge) {
  for (size_t n = 1; n < kMartinMoyce.size(); ++n) {
    const Measurement &a = kMartinMoyce[n - 1], &b = kMartinMoyce[n];
    EXPECT_LE((b.Z - a.Z) / (b.T - a.T), kDryBedFrontSpeed)
        << "from T = " << a.T << " to " << b.T;
  }
}

// A column a = 0.1 m wide and 2a high, 20 cells across, in a slab 4 cells thick with
// free-slip side walls (the experiment is a 2D collapse).
TEST(DamBreakFront, FollowsMartinMoyce1952) {
  const double a = 0.1, g = 9.81;
  CaseConfig config =
      test::water_box_case({6 * a, 0.02, 2.5 * a}, 0.005, {0, 0, 0}, {a, 0.02, 2 * a}, 1.0);
  config.pressure.rtol = 1e-6;
  Simulation sim(config, MPI_COMM_WORLD);
  const double time_scale = std::sqrt(2 * g / a);  // T = t * time_scale
  double worst = 0;
  for (double T : {1.5, 2.0, 2.5, 3.0}) {
    const double t_end = T / time_scale;
    while (sim.time() < t_end - 1e-12) sim.step(std::min(sim.stable_dt(), t_end - sim.time()));
    const double Z = front_position(sim) / a, Z_measured = measured_front(T);
    const double error = (Z - Z_measured) / Z_measured;
    RecordProperty("Z_at_T" + std::to_string(T), std::to_string(Z));
    if (sim.topology().rank() == 0)
      std::printf("T = %.2f: Z = %.3f, measured %.3f (%+.1f%%)\n", T, Z, Z_measured, 100 * error);
    worst = std::max(worst, std::abs(error));
  }
  // 10%: Martin & Moyce's own two column sizes (a = 1.125 and 2.25 in) differ by up to 8% at
  // equal T (surface tension, viscosity and the gate's opening, which this inviscid model
  // leaves out), and the result is converged in resolution: 40 cells across the column
  // instead of 20 moved Z by less than 1% when this test was written (+4..+6% ahead).
  EXPECT_LT(worst, 0.10);
}

// Richards' pore water (src/wet/richards.hpp, src/wet/soil_water.hpp) on 1, 2 and 4 ranks:
// the soil model by hand, water conserved to round-off, capillary rise against the
// retention curve, and seepage through a sand dam against Dupuit's discharge.
#include <gtest/gtest.h>

#include <cmath>

#include "src/wet/richards.hpp"
#include "src/wet/soil_water.hpp"
#include "tests/pore_column.hpp"
#include "tests/world_ranks.hpp"

using namespace dunesim;

namespace {

const double kDx = 0.01;

// van Genuchten's suction where S_e = 1/2: (2^(1/m) - 1)^(1/n) / alpha.
double half_saturation_suction(const WetSandSpec& w) {
  const double m = 1 - 1 / w.van_genuchten_n;
  return std::pow(std::pow(2.0, 1 / m) - 1, 1 / w.van_genuchten_n) / w.van_genuchten_alpha;
}

}  // namespace

// The soil model against van Genuchten and Mualem by hand on the curve (it is tabulated every
// 1e-4 m: linear interpolation is within (1e-4)^2 / 8 |theta''| < 1e-6 of theta and within
// 1e-3 of C and K), its inverse to round-off, a soaked pore holding more only by its
// storage, and dry sand with a finite head that passes no water.
TEST(SoilWater, TheCurveByHandAndItsInverse) {
  const WetSandSpec w = test::richards_sand().wet;
  const SoilWater soil(w);
  const double m = 1 - 1 / w.van_genuchten_n;
  auto s_e = [&](double h) {
    return std::pow(1 + std::pow(-w.van_genuchten_alpha * h, w.van_genuchten_n), -m);
  };
  for (double h : {-0.4, -0.3, -0.2, -0.1, -0.069, -0.05, -0.02, -0.01, -0.001}) {
    const double theta =
        w.porosity * (w.residual_saturation + (1 - w.residual_saturation) * s_e(h));
    EXPECT_NEAR(soil.water_content(h), theta, 1e-6) << h;
    const double dh = 1e-7;
    const double slope =
        w.porosity * (1 - w.residual_saturation) * (s_e(h + dh) - s_e(h - dh)) / (2 * dh);
    EXPECT_NEAR(soil.capacity(h), std::max(slope, w.specific_storage), 1e-3 * slope) << h;
    const double inner = 1 - std::pow(1 - std::pow(s_e(h), 1 / m), m);
    const double k = w.conductivity * std::sqrt(s_e(h)) * inner * inner;
    EXPECT_NEAR(soil.conductivity(h), k, 1e-3 * k) << h;
  }
  for (double h : {-2.0, -1.0, -0.3, -0.1, -0.05, -0.01, 0.0, 0.3})
    EXPECT_NEAR(soil.head(soil.water_content(h)), h, 1e-9 * (1 + std::abs(h))) << h;
  EXPECT_DOUBLE_EQ(soil.water_content(0.0), w.porosity);
  EXPECT_DOUBLE_EQ(soil.water_content(1.0), w.porosity + w.specific_storage);
  EXPECT_DOUBLE_EQ(soil.conductivity(0.0), w.conductivity);
  // Kirchhoff's mean between two heads: int K dh / dh, by the trapezoid rule by hand.
  double integral = 0;
  for (int i = 0; i < 10000; ++i) integral += soil.conductivity(-0.2 + (i + 0.5) * 2e-5) * 2e-5;
  EXPECT_NEAR(soil.mean_conductivity(-0.2, 0.0), integral / 0.2, 1e-4 * integral / 0.2);
  // Dry sand (no water at all) has a finite head, and passes no water.
  EXPECT_GT(soil.head(0.0), -2.0);
  EXPECT_EQ(soil.conductivity(soil.head(0.0)), 0.0);
}

namespace {

// A dry sand column 3 x 3 cells standing in a bath whose level is 4 cm above its foot, left
// for two days (steps growing from 10 s to 4000 s: the implicit solve needs no stability
// limit), with `upper` (if given) above `upper_from` instead of the column's sand. Prints
// and checks that every bit of water in it came from the bath (pores + particles + owed
// water = initial + what the bath was given back, to round-off, on any rank count), and
// that near the table it has reached the equilibrium of its retention curve, h = -(z -
// table): a saturation that depends on the head alone, whatever the pores' volume.
void expect_capillary_rise(const std::vector<MaterialSpec>& upper = {}, double upper_from = 1) {
  const double top = 0.4, table = 0.04;
  std::vector<test::PoreScene::Block> column{{{0, 0, table}, {0.03, 0.03, top}}};
  if (!upper.empty()) {
    column[0].max[2] = upper_from;
    column.push_back({{0, 0, upper_from}, {0.03, 0.03, top}, -1, 2});
  }
  test::PoreScene scene(MPI_COMM_WORLD, {3, 3, 40}, kDx, test::richards_sand(), column,
                        {{{0, 0, 0}, {0.03, 0.03, table}}}, upper);
  const double initial = scene.total_water();
  int64_t picard = 0, substeps = 0;
  double t = 0;
  for (int s = 0; t < 2 * 86400; ++s) {
    const double dt = std::min(4000.0, 10.0 * std::pow(1.5, s));
    const PoreFlowStats stats = scene.advance(dt);
    picard += stats.picard_iterations;
    substeps += stats.substeps;
    t += dt;
  }
  const double now = scene.total_water();
  const double balance = initial + scene.fed();
  EXPECT_NEAR(now, balance, 1e-10 * balance);

  const std::vector<double> s = scene.layer_saturation();
  const WetSandSpec& w = scene.sand().wet;
  const SoilWater soil(w);
  const double s_half = w.residual_saturation + 0.5 * (1 - w.residual_saturation);
  double z_half = -1;
  for (int l = 4; l + 1 < int(s.size()); ++l)
    if (s[l] >= s_half && s[l + 1] < s_half)
      z_half = (l + 0.5 + (s[l] - s_half) / (s[l] - s[l + 1])) * kDx;
  const double expected = table + half_saturation_suction(w);
  // Layers up to the S_e = 1/2 height against the curve at their centres: a layer's mean
  // differs from its centre's value by (dx^2 / 24) S'', under 0.005 here.
  double worst = 0;
  for (int l = 4; (l + 0.5) * kDx < expected; ++l) {
    const double z = (l + 0.5) * kDx;
    worst = std::max(worst, std::abs(s[l] - soil.water_content(table - z) / w.porosity));
  }
  if (test::world_rank() == 0)
    std::printf(
        "capillary rise after %.0f s: S_e = 1/2 at %.4f m above the table (retention "
        "curve %.4f m), saturation within %.4f of the curve below it; %lld Picard "
        "iterations in %lld substeps\n",
        t, z_half - table, expected - table, worst, (long long)picard, (long long)substeps);
  // The tolerance: a cell or 10% of the rise, whichever is larger.
  EXPECT_NEAR(z_half, expected, std::max(kDx, 0.1 * (expected - table)));
  EXPECT_LT(worst, 0.005);
}

}  // namespace

TEST(PoreWater, CapillaryRiseReachesTheRetentionCurve) { expect_capillary_rise(); }

// The same column with a denser sand (porosity 0.30 against 0.43, the same curve of
// saturation against head) from 4 cm above the table: the head is continuous across the
// layers, so the saturation follows one curve through both and the rise is the same. A
// cell that held the first sand's theta instead would read S = 0.43 / 0.30 times too high.
TEST(PoreWater, CapillaryRiseIsTheSameInALessPorousLayer) {
  MaterialSpec dense = test::richards_sand();
  dense.name = "dense sand";
  dense.wet.porosity = 0.30;
  expect_capillary_rise({dense}, 0.08);
}

namespace {

// A rectangular sand dam 20 cm long and 30 cm high between reservoirs 20 cm and 5 cm deep
// (1 cm cells, 3 across), from dry to steady seepage (about 3 h in steps growing to 120 s:
// a reservoir cell can give only the water it holds in a step). Returns the discharge per
// unit width (m^2/s), from the reservoir side, over the last step, and the share of the
// outflow that left through the seepage face above the downstream reservoir.
struct DamSeepage {
  double discharge, outflow, seepage_face_share;
};

DamSeepage seep_through_dam(const MaterialSpec& sand) {
  const double dx = kDx, width = 3 * kDx, h1 = 0.2, h2 = 0.05;
  test::PoreScene scene(MPI_COMM_WORLD, {26, 3, 30}, dx, sand,
                        {{{0.03, 0, 0}, {0.23, width, 0.3}}},
                        {{{0, 0, 0}, {0.03, width, h1}}, {{0.23, 0, 0}, {0.26, width, h2}}});
  const double particle_volume = dx * dx * dx / 8;
  DamSeepage out{};
  for (int s = 0; s < 100; ++s) {
    const double dt = std::min(120.0, 10.0 * std::pow(1.5, s));
    const double seeped_before = scene.seeped();
    const PoreFlowStats st = scene.advance(dt);
    const double per_width = particle_volume / (dt * width);
    out.discharge = global_sum(scene.topology(), st.into_sand) * per_width;
    out.outflow = global_sum(scene.topology(), st.out_of_sand) * per_width;
    out.seepage_face_share = (scene.seeped() - seeped_before) * per_width / out.outflow;
  }
  return out;
}

}  // namespace

// Dupuit's discharge q = K (h1^2 - h2^2) / (2 L), exact for the discharge of a rectangular
// dam with a seepage face (Charny 1951), neglects the capillary fringe above the water
// table. For a coarse sand whose air-entry suction 1 / alpha is a centimetre (one cell), the
// fringe is negligible and the discharge is within the 10% of Dupuit's; for
// Carsel & Parrish's sand (1 / alpha = 7 cm) the fringe carries water too, so the discharge
// lies above Dupuit's and below Dupuit's with a saturated fringe as thick as the curve's
// capillary length lambda = int K(h) / K_s dh (water flowing in the fringe along the same
// gradient: q = K [(h1^2 - h2^2) / (2 L) + lambda (h1 - h2) / L]).
TEST(PoreWater, DamSeepageMatchesDupuit) {
  const double h1 = 0.2, h2 = 0.05, length = 0.2;
  MaterialSpec coarse = test::richards_sand();
  coarse.wet.van_genuchten_alpha = 100;
  const double k = coarse.wet.conductivity;
  const double dupuit = k * (h1 * h1 - h2 * h2) / (2 * length);
  const DamSeepage c = seep_through_dam(coarse);
  const DamSeepage s = seep_through_dam(test::richards_sand());
  const SoilWater soil(test::richards_sand().wet);
  double lambda = 0;
  for (double h = -5.0; h < 0; h += 1e-4) lambda += soil.conductivity(h + 5e-5) / k * 1e-4;
  const double with_fringe = dupuit + k * lambda * (h1 - h2) / length;
  if (test::world_rank() == 0)
    std::printf(
        "dam seepage: coarse sand q = %.4g m^2/s (%.3f Dupuit, out %.3f, seepage face "
        "%.0f%% of it); sand q = %.4g (%.3f Dupuit, %.3f Dupuit with a fringe of "
        "lambda = %.1f mm)\n",
        c.discharge, c.discharge / dupuit, c.outflow / dupuit, 100 * c.seepage_face_share,
        s.discharge, s.discharge / dupuit, with_fringe / dupuit, 1000 * lambda);
  EXPECT_NEAR(c.discharge, dupuit, 0.1 * dupuit);
  EXPECT_NEAR(c.outflow, c.discharge, 0.01 * c.discharge);  // steady
  EXPECT_GT(c.seepage_face_share, 0.05);
  EXPECT_GT(s.discharge, dupuit);
  EXPECT_LT(s.discharge, with_fringe);
}

namespace {

// Green-Ampt under a pond of depth h0: K t = F - a ln(1 + F / a), a = (psi + h0) dtheta,
// solved for F by Newton from above sqrt(2 a K t) (the right side is convex in F).
double green_ampt(double k, double a, double t) {
  double f = std::max(k * t, std::sqrt(2 * a * k * t));
  for (int i = 0; i < 100; ++i) {
    const double step = (f - a * std::log1p(f / a) - k * t) / (f / (a + f));
    f -= step;
    if (std::abs(step) < 1e-14 * f) break;
  }
  return f;
}

}  // namespace

// Ponded infiltration into dry sand (the model's dry sand, S = 0) against Green-Ampt with the
// pond's depth h0 = 0, 2 and 10 cm, from 1 min to 2 h: 1.2 m of sand at 1 cm cells, the pond a
// reservoir over it. Green-Ampt's parameters are the soil model's own: K_s, dtheta = the
// porosity, and the wetting-front suction psi = int K(h) / K_s dh from the dry sand's head to 0
// (Neuman 1976; 3.8 cm for this sand, against Rawls et al.'s 4.95 cm for theirs). Tolerance,
// the 10%: Green-Ampt's sharp front is the law's own approximation (within a few
// percent of Richards' solution for sands, Rawls et al. 1983: here it runs 3-5% ahead late),
// and 1 cm cells resolve the front after a minute (4 cells deep), when the first cell's
// share of F is the largest (measured 6.4%, 6.1% and 2.2% for the three ponds).
TEST(PoreWater, PondedInfiltrationFollowsGreenAmptWithThePondsDepth) {
  const MaterialSpec sand = test::richards_sand();
  const SoilWater soil(sand.wet);
  const double k = sand.wet.conductivity, n = sand.wet.porosity, dry_head = soil.head(0.0);
  double psi = 0;
  const int pieces = 100000;
  for (int i = 0; i < pieces; ++i)
    psi += soil.conductivity(dry_head * (i + 0.5) / pieces) / k * -dry_head / pieces;
  const double dx = kDx;
  const double top = 1.8, area = 9 * dx * dx, width = 3 * dx;
  for (double pond : {0.0, 0.02, 0.1}) {
    test::PoreScene scene(MPI_COMM_WORLD, {3, 3, int(std::lround(top / dx)) + 1}, dx, sand,
                          {{{0, 0, 0}, {width, width, top}}},
                          {{{0, 0, top}, {width, width, top + dx}, top + pond}});
    const double initial = scene.total_water();
    double t = 0, worst = 0, next_print = 60;
    int64_t picard = 0, krylov = 0, steps = 0;
    const double a = (psi + pond) * n;
    for (int s = 0; t < 7200 - 1e-9; ++s) {
      const double dt = std::min({30.0, 0.5 * std::pow(1.2, s), 7200 - t});
      const PoreFlowStats st = scene.advance(dt);
      picard += st.picard_iterations;
      krylov += st.krylov_iterations;
      ++steps;
      t += dt;
      // What the pond was given back to keep its level is what the sand took.
      const double f = scene.fed() * dx * dx * dx / 8 / area;
      if (t >= 60) worst = std::max(worst, std::abs(f / green_ampt(k, a, t) - 1));
      if (test::world_rank() == 0 && t >= next_print) {
        std::printf("pond %.2f m, t = %6.0f s: F = %.4f m, Green-Ampt %.4f m\n", pond, t, f,
                    green_ampt(k, a, t));
        next_print *= 4;
      }
    }
    EXPECT_NEAR(scene.total_water(), initial + scene.fed(), 1e-10 * scene.total_water());
    if (test::world_rank() == 0)
      std::printf(
          "pond %.2f m: F within %.1f%% of Green-Ampt (psi = %.1f mm) from 60 s to 2 h; "
          "%lld steps, %lld Picard and %lld CG iterations\n",
          pond, 100 * worst, 1000 * psi, (long long)steps, (long long)picard, (long long)krylov);
    EXPECT_LT(worst, 0.10) << "pond " << pond;
  }
}

// A thin puddle under a high head on dry, conductive sand for a long step: the sand asks
// for far more than the puddle holds. It gets just what the puddle holds, and no sand cell
// passes on water it never got: every particle's water stays within [0, porosity] (a
// pass-through promised in full but granted in part would leave the top cells negative).
TEST(PoreWater, ThinPuddleGivesNoMoreThanItHolds) {
  MaterialSpec sand = test::richards_sand();
  sand.wet.conductivity = 2e-3;
  const double dx = kDx, width = 3 * dx, top = 0.1;
  test::PoreScene scene(MPI_COMM_WORLD, {3, 3, 12}, dx, sand, {{{0, 0, 0}, {width, width, top}}},
                        {{{0, 0, top}, {width, width, top + dx}, 1.0}});
  const double before = scene.total_water();  // the puddle's particles: 8 per cell
  scene.advance(60.0);
  const double taken = scene.fed();  // what the puddle was given back: what the sand took
  double lowest = 1, highest = 0;
  const Particles& p = scene.particles();
  for (size_t n = 0; n < p.size(); ++n)
    if (p.material[n] == 1) {
      lowest = std::min(lowest, p.water_content[n]);
      highest = std::max(highest, p.water_content[n]);
    }
  lowest = -global_max(scene.topology(), -lowest);
  highest = global_max(scene.topology(), highest);
  if (test::world_rank() == 0)
    std::printf("puddle of %.0f particle volumes: the sand took %.3f; water content %.3g..%.3g\n",
                before, taken, lowest, highest);
  EXPECT_LE(taken, before * (1 + 1e-12));
  EXPECT_GT(taken, 0.5 * before);  // the cap binds: the sand drinks most of it
  EXPECT_GE(lowest, -1e-12);
  EXPECT_LE(highest, sand.wet.porosity + 1e-6);
}

// The pore water's schedule: over steps of any length it solves in the steps that cross a
// multiple of the interval, never falls behind the flow by an interval or more, and its
// pieces add up to the time it keeps, so no pore-water time is lost or solved twice.
TEST(PoreWater, SolvesOncePerIntervalAndKeepsUpWithTheFlow) {
  const double interval = 0.02;
  double t = 0, solved = 0;
  int solves = 0;
  for (int s = 0; t < 1.0; ++s) {
    const double dt = 0.001 + 0.004 * ((s * 7919) % 13) / 12.0 + (s == 50 ? 0.05 : 0);
    const double piece = pore_flow_time(t, dt, interval);
    if (piece > 0) {
      ++solves;
      EXPECT_GE(piece, interval * (1 - 1e-9)) << "step " << s;
    }
    solved += piece;
    t += dt;
    EXPECT_GT(solved, t - interval) << "step " << s;
    EXPECT_LE(solved, t + 1e-12) << "step " << s;
  }
  EXPECT_NEAR(solved, std::floor(t / interval) * interval, 1e-12);
  EXPECT_EQ(solves, int(std::floor(t / interval)) - 2);  // step 50 crosses three multiples
}

// The whole step with Richards' pore water: a soaked sand block slumps beside a pool and
// seeps from its faces; the water of the run (free, in the pores, and owed to free water) is
// conserved to round-off, and water leaves the block as particles.
TEST(PoreWater, SlumpingSoakedBlockConservesWaterInTheFullStep) {
  MaterialSpec sand = test::richards_sand();
  sand.wet.conductivity = 2e-3;
  Simulation sim(test::soaked_block_beside_pool(sand), MPI_COMM_WORLD);
  auto water = [&] {
    double sum = 0;
    const Particles& p = sim.particles();
    for (size_t n = 0; n < p.size(); ++n) sum += p.water_content[n];
    for_each_index(sim.topology().owned_cells(sim.topology().rank()),
                   [&](int i, int j, int k) { sum += sim.grid().pore_release(i, j, k); });
    return global_sum(sim.topology(), sum);
  };
  const double before = water();
  while (sim.time() < 0.4 - 1e-12) sim.step(std::min(sim.stable_dt(), 0.4 - sim.time()));
  const double after = water();
  const int64_t seeped = global_sum(sim.topology(), sim.seeped_particles());
  if (sim.topology().rank() == 0)
    std::printf("water %.12f -> %.12f (%.1e relative), %lld particles made from seepage\n",
                before, after, after / before - 1, (long long)seeped);
  EXPECT_GT(seeped, 0);
  EXPECT_NEAR(after, before, 1e-12 * before);
}

// Soaked sand's friction on the effective stress (src/wet/effective_stress.hpp): the pressure
// the sand stages read, p' = p - rho_w g h, under still water and in the window that swaps it
// in.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "decomposition/reductions.hpp"
#include "io/case_config.hpp"
#include "src/driver/simulation.hpp"
#include "src/wet/effective_stress.hpp"

using namespace dunesim;

namespace {

constexpr double kCell = 0.01;             // m
constexpr double kGravity = 9.81;          // m/s^2
constexpr double kWaterDensity = 1000.0;   // kg/m^3
constexpr double kSoakedDensity = 2000.0;  // 1600 of grains + 0.4 porosity x 1000 of water
constexpr double kBedHeight = 0.1;         // m
constexpr double kWaterDepth = 0.15;       // m, over the floor: 5 cm over the bed

// A bed of soaked sand (porosity 0.4, S = 1, Richards' pore water, friction on the effective
// stress) 0.1 m deep under still water 0.15 m deep, in a box 0.2 x 0.04 x 0.2 m of 1 cm
// cells. The water block comes first, so the sand's source takes the cells both claim.
CaseConfig soaked_bed() {
  std::ostringstream text;
  text << "[case]\nname = \"soaked_bed\"\n[domain]\nsize = [0.2, 0.04, 0.2]\ncell_size = "
       << kCell << "\n[time]\nend = 1.0\n[output]\ndirectory = \"unused\"\ninterval = 1.0\n"
       << "[[material]]\nname = \"water\"\nkind = \"water\"\n"
       << "[[material]]\nname = \"sand\"\nkind = \"sand\"\nfriction_angle = 30.0\n"
       << "density = 1600.0\nporosity = 0.4\nsaturation = 1.0\npore_flow = \"richards\"\n"
       << "conductivity = 1e-3\nsoaked_friction = \"effective_stress\"\n"
       << "[[source]]\nmaterial = \"water\"\nshape = \"block\"\nmin = [0, 0, 0]\n"
       << "max = [0.2, 0.04, " << kWaterDepth << "]\n"
       << "[[source]]\nmaterial = \"sand\"\nshape = \"block\"\nmin = [0, 0, 0]\n"
       << "max = [0.2, 0.04, " << kBedHeight << "]\n";
  return parse_case_text(text.str(), "soaked_bed.toml");
}

// Column (10, 2)'s value of f(i, j, k) for k = 0 .. count - 1, from the rank that owns each
// cell (0 from the others, summed).
template <class F>
std::vector<double> column(const Simulation& sim, int count, F&& f) {
  std::vector<double> values(count, 0.0);
  const Box owned = sim.topology().owned_cells(sim.topology().rank());
  for (int k = 0; k < count; ++k)
    if (owned.contains(10, 2, k)) values[k] = f(10, 2, k);
  global_sum_in_place(sim.topology(), values.data(), count);
  return values;
}

}  // namespace

// Under still water the pore water carries the water's share of the soaked sand's weight
// (Terzaghi): down through the bed the flow's pressure grows by rho_sat g = 2000 g a metre and
// the pore water's by rho_w g (its hydrostatic head from Richards' solve), so the effective
// pressure the friction acts on grows by the buoyant weight, (rho_sat - rho_w) g = 1000 g.
// Read between the bed's cells 2 and 7 (away from the floor and the surface's mixed cells),
// after 0.3 s at rest (six pore-water solves). Both are exact for a bed at rest; the
// tolerance, 2%, is the solves' (the pressure's CG to a relative 1e-6 or better, Richards'
// Picard iteration to 1e-5 in water content, its CG below that), far inside the factor 2
// that friction on the flow's pressure would make.
TEST(SoakedBed, PoreWaterCarriesTheWatersShareOfTheWeight) {
  Simulation sim(soaked_bed(), MPI_COMM_WORLD);
  while (sim.time() < 0.3 - 1e-12) sim.step(std::min(sim.stable_dt(), 0.3 - sim.time()));
  const MacGrid& g = sim.grid();
  const std::vector<double> p =
      column(sim, 10, [&](int i, int j, int k) { return g.pressure(i, j, k); });
  const std::vector<double> h =
      column(sim, 10, [&](int i, int j, int k) { return g.pore_head(i, j, k); });
  const int top = 2, bottom = 7;  // cells of the bed, z = 2.5 and 7.5 cm
  const double depth = (bottom - top) * kCell;
  const double flow = (p[top] - p[bottom]) / depth;
  const double pore = kWaterDensity * kGravity * (h[top] - h[bottom]) / depth;
  const double effective = flow - pore;
  RecordProperty("flow_pressure_gradient_Pa_per_m", std::to_string(flow));
  RecordProperty("pore_pressure_gradient_Pa_per_m", std::to_string(pore));
  EXPECT_NEAR(flow, kSoakedDensity * kGravity, 0.02 * kSoakedDensity * kGravity);
  EXPECT_NEAR(pore, kWaterDensity * kGravity, 0.02 * kWaterDensity * kGravity);
  EXPECT_NEAR(effective, (kSoakedDensity - kWaterDensity) * kGravity,
              0.02 * (kSoakedDensity - kWaterDensity) * kGravity);

  // The window the sand stages run in: p' where the head is positive, the flow's pressure
  // put back to the last bit when it closes.
  MacGrid& grid = sim.grid();
  const std::vector<double> before(grid.pressure.data(),
                                   grid.pressure.data() + grid.pressure.size());
  const double weight = kWaterDensity * kGravity;
  {
    EffectivePressureWindow window(grid, weight);
    for (size_t n = 0; n < grid.pressure.size(); ++n) {
      const double head = grid.pore_head.data()[n];
      const double expected = head > 0 ? std::max(before[n] - weight * head, 0.0) : before[n];
      ASSERT_EQ(grid.pressure.data()[n], expected) << "cell " << n;
    }
  }
  for (size_t n = 0; n < grid.pressure.size(); ++n)
    ASSERT_EQ(grid.pressure.data()[n], before[n]) << "cell " << n;
}

// The angle of repose of a poured 2D heap for a chosen pour (not a test): how much the
// flank slope depends on the nozzle, the rate, the drop height and the resolution.
//
//   mpiexec -n 2 pour_angle --phi 30 --cell 0.01 --nozzle-width 0.04 --nozzle-height 0.2 \
//       --speed 0.5 --pour-time 1.0 --settle-time 0.5
//
// Prints the slope of each flank, the heap's height and base, the largest speed left and
// the particle count against the particles created. --report-every follows the heap while
// it is poured and settles (--profile adds every column's surface, --flank-flow the velocity
// of the flank's grains by depth); --flip-ratio, --transfer, --cfl, --max-dt and
// --friction-substeps vary the numerics, --rheology and --phi-dynamic the sand.
#include <mpi.h>
#include <petscsys.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "decomposition/reductions.hpp"
#include "tests/poured_heap.hpp"

using namespace dunesim;

namespace {

// The flow on the heap's right flank (collective): the mean horizontal velocity of the
// grains, mm/s, in bins 1 cm wide from the heap's axis outward (columns) and one cell deep
// from the column's surface downward (rows): how deep the surface flow reaches, and where it
// stops. Blank where no grain lies.
void print_flank_flow(const Simulation& sim, const test::HeapShape& heap, const test::PourSpec& s,
                      int rank) {
  constexpr double kBin = 0.01;  // m
  constexpr int kDepths = 10;    // cells below the surface
  const int bins = int(0.5 * s.length / kBin) + 1;
  std::vector<double> sums(size_t(2) * bins * kDepths, 0.0);  // momentum, then count
  double* const velocity = sums.data();
  double* const count = sums.data() + size_t(bins) * kDepths;
  const Particles& p = sim.particles();
  const int columns = int(heap.surface.size());
  for (size_t n = 0; n < p.size(); ++n) {
    const double from_axis = p.x[n] - 0.5 * s.length;
    const int column = std::clamp(int(p.x[n] / s.cell), 0, columns - 1);
    const int bin = int(from_axis / kBin);
    const int depth = int((heap.surface[column] + s.cell - p.z[n]) / s.cell);
    if (from_axis < 0 || bin >= bins || depth < 0 || depth >= kDepths) continue;
    velocity[size_t(depth) * bins + bin] += p.vx[n];
    count[size_t(depth) * bins + bin] += 1;
  }
  global_sum_in_place(sim.topology(), sums.data(), int(sums.size()));
  if (rank != 0) return;
  std::printf("    flank flow, mm/s: rows 0..%d cells below the surface, columns 1 cm apart\n",
              kDepths - 1);
  for (int depth = 0; depth < kDepths; ++depth) {
    std::printf("    %2d", depth);
    for (int bin = 0; bin < bins; ++bin) {
      const size_t at = size_t(depth) * bins + bin;
      if (count[at] > 0)
        std::printf(" %5.0f", 1000.0 * velocity[at] / count[at]);
      else
        std::printf("      ");
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"angle of repose of a poured heap"};
  test::PourSpec s;
  app.add_option("--phi", s.friction_angle, "friction angle, degrees");
  app.add_option("--cell", s.cell, "cell size, m");
  app.add_option("--length", s.length, "floor length, m");
  app.add_option("--height", s.height, "domain height, m");
  app.add_option("--slab-cells", s.slab_cells, "cells across the slab");
  app.add_option("--nozzle-width", s.nozzle_width, "m");
  app.add_option("--nozzle-height", s.nozzle_height, "lower edge above the floor, m");
  app.add_option("--speed", s.nozzle_speed, "downward speed of the poured sand, m/s");
  app.add_option("--pour-time", s.pour_time, "s");
  app.add_option("--settle-time", s.settle_time, "s");
  app.add_option("--floor-friction", s.floor_friction, "Coulomb mu of the floor");
  app.add_option("--seed", s.seed, "seed of the jitter");
  app.add_option("--balance-interval", s.balance_interval,
                 "steps between load-balance checks (0: never)");
  const CLI::Option* flip_ratio = app.add_option(
      "--flip-ratio", s.flip_ratio,
      "FLIP share of the sand's velocity update (alone, it makes the transfer flip)");
  const std::map<std::string, Transfer> transfers = {{"flip", Transfer::Flip},
                                                     {"apic", Transfer::Apic},
                                                     {"rpic", Transfer::Rpic}};
  app.add_option("--transfer", s.transfer,
                 "the sand's transfer: flip (with --flip-ratio), "
                 "apic or rpic")
      ->transform(CLI::CheckedTransformer(transfers));
  const std::map<std::string, SandRheology::Kind> rheologies = {
      {"zhu_bridson", SandRheology::Kind::ZhuBridson},
      {"mu_i", SandRheology::Kind::MuOfI},
      {"rigid_plastic", SandRheology::Kind::RigidPlastic}};
  app.add_option("--rheology", s.rheology,
                 "the sand's rheology: zhu_bridson, mu_i or rigid_plastic")
      ->transform(CLI::CheckedTransformer(rheologies));
  const std::map<std::string, SandRheology::YieldSurface> yield_surfaces = {
      {"drucker_prager", SandRheology::YieldSurface::DruckerPrager},
      {"mohr_coulomb", SandRheology::YieldSurface::MohrCoulomb}};
  app.add_option("--yield-surface", s.yield_surface,
                 "zhu_bridson only: drucker_prager (the paper's) or mohr_coulomb "
                 "(yield_surface)")
      ->transform(CLI::CheckedTransformer(yield_surfaces));
  const std::map<std::string, FreeSurface> free_surfaces = {
      {"first_order", FreeSurface::FirstOrder}, {"ghost_fluid", FreeSurface::GhostFluid}};
  app.add_option("--free-surface", s.free_surface,
                 "first_order (p = 0 at the first air cell's centre) or ghost_fluid "
                 "([pressure] free_surface)")
      ->transform(CLI::CheckedTransformer(free_surfaces));
  app.add_option("--phi-dynamic", s.dynamic_friction_angle,
                 "mu_i only: atan(mu_2), the friction at large inertial number, degrees "
                 "(default max(33, phi))");
  app.add_option("--cfl", s.cfl, "cells a particle may cross per step");
  app.add_option("--max-dt", s.max_dt, "longest step, s");
  app.add_option("--friction-substeps", s.friction_substeps,
                 "substeps of the frictional stress (0: the transfer's default)");
  app.add_flag("--zhu-bridson-2005", s.zhu_bridson_2005,
               "the paper's sand model (model = \"zhu_bridson_2005\"): 95% PIC, rigid cells "
               "interpolated, no Culmann's wedges, unless the options below say otherwise");
  app.add_option("--rigid-cells-own-velocity", s.rigid_cells_own_velocity,
                 "true: particles of rigid cells take their cluster's motion "
                 "(rigid_cell_velocity; default: the model's)");
  app.add_option("--culmann-wedges-yield", s.culmann_wedges_yield,
                 "true: sand above a plane steeper than phi that daylights yields "
                 "(culmann_wedges_yield; default: the model's)");
  double report_every = 0;
  app.add_option("--report-every", report_every,
                 "also print the slopes, top and largest speed every so many seconds");
  bool profile = false;
  app.add_flag("--profile", profile, "also print the surface height of every column");
  bool flank_flow = false;
  app.add_flag("--flank-flow", flank_flow,
               "also print the right flank's horizontal velocity by depth (with --report-every)");
  CLI11_PARSE(app, argc, argv);
  if (flip_ratio->count() > 0 && !s.transfer) s.transfer = Transfer::Flip;
  if (s.dynamic_friction_angle > 0 &&
      (s.dynamic_friction_angle < s.friction_angle || s.dynamic_friction_angle >= 90)) {
    std::fprintf(stderr, "--phi-dynamic: expected at least --phi (%g) and under 90, got %g\n",
                 s.friction_angle, s.dynamic_friction_angle);
    return 2;
  }

  MPI_Init(&argc, &argv);
  PetscInitialize(&argc, &argv, nullptr, nullptr);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  {
    const auto start = std::chrono::steady_clock::now();
    double next_report = report_every;
    auto progress = [&](const Simulation& sim) {
      if (report_every <= 0 || sim.time() < next_report) return;
      next_report += report_every;
      const test::HeapShape now = test::measure_heap(sim, s.cell);
      const Simulation::SandStats& sand = sim.last_sand_stats();
      if (rank == 0)
        std::printf(
            "  t %.2f s: slopes %.1f / %.1f deg, top %.3f m, max speed %.3f m/s, "
            "sand cells %lld, yielding %lld, clusters %lld, largest %lld\n",
            sim.time(), now.left_slope_deg, now.right_slope_deg, now.top, now.max_speed,
            (long long)sand.sand_cells, (long long)sand.yielding_cells, (long long)sand.clusters,
            (long long)sand.largest_cluster_cells);
      if (rank == 0 && profile)
        for (size_t col = 0; col < now.surface.size(); ++col)
          std::printf("    x %.4f  surface %.4f\n", (col + 0.5) * s.cell, now.surface[col]);
      if (flank_flow) print_flank_flow(sim, now, s, rank);
    };
    const test::HeapShape heap = test::pour_heap(s, MPI_COMM_WORLD, progress);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (rank == 0)
      std::printf(
          "phi %.1f cell %.4f nozzle %.3f m at %.3f m, %.2f m/s for %.2f s: slopes "
          "%.1f / %.1f deg (mean %.1f), top %.3f m, base %.3f m, max speed %.3f m/s, "
          "surface change %.4f m (mean %.4f m), "
          "particles %lld of %lld, %.0f s\n",
          s.friction_angle, s.cell, s.nozzle_width, s.nozzle_height, s.nozzle_speed, s.pour_time,
          heap.left_slope_deg, heap.right_slope_deg, heap.mean_slope_deg(), heap.top, heap.base,
          heap.max_speed, heap.surface_change, heap.mean_surface_change,
          (long long)heap.particles, (long long)heap.created, wall);
    if (rank == 0 && profile)
      for (size_t col = 0; col < heap.surface.size(); ++col)
        std::printf("  x %.4f  surface %.4f\n", (col + 0.5) * s.cell, heap.surface[col]);
  }
  PetscFinalize();
  MPI_Finalize();
  return 0;
}

// Ponded infiltration into a column of dry sand against the Green-Ampt law; exits with 1 when
// the law's bound or the water balance fails (print_summary), so the validation tier runs it:
// the percolation stage of src/wet/percolation.hpp on the real grid, halo and rank layout, with
// its parameters mapped from a real sand.
//
//   mpiexec -n 2 build/green_ampt [--cell 0.01] [--ideal-saturation 0.19] [--end 7200] \
//       [--csv green_ampt.csv]
//
// The sand is the USDA texture class "sand" of Rawls, Brakensiek & Miller (1983),
// "Green-Ampt infiltration parameters from soils data", J. Hydraulic Eng. 109(1), 62-70:
// total porosity 0.437, effective porosity theta_e = 0.417, wetting-front suction head
// psi = 4.95 cm, saturated hydraulic conductivity K = 11.78 cm/h.
//
// Mapping onto the model, d theta/dt = div(k_p grad theta) + d/dz_down [K f(S)]:
//   n   = theta_e. The sand starts dry (its residual water, 0.437 - 0.417, stays on the
//         grains), so the water content a pore gains is dtheta = theta_e.
//   K   = K: soaked sand (f = 1) drains at Darcy's flux under a unit gradient.
//   k_p from the sorptivity. Early on gravity is negligible and both laws are capillary
//       uptake, F = S_orp sqrt(t). Green-Ampt: dF/dt ~ K psi dtheta / F, so F^2 = 2 K psi
//       dtheta t. Constant diffusivity D with theta held at the surface: the erfc profile's
//       surface flux dtheta sqrt(D / (pi t)) integrates to F = 2 dtheta sqrt(D t / pi), so
//       S_orp^2 = 4 dtheta^2 D / pi. Equal sorptivities: k_p = D = pi K psi / (2 dtheta).
//   S'  the water sand holds against gravity: the model drains only above S', and the
//       water a drained soil keeps is its field capacity (about -10 kPa in sands). Sand's
//       is 0.10 in the NetSTORM Green-Ampt soil table (whose sand has the same
//       psi = 49.5 mm; dynplot.com/netstorm/docs/GreenAmptParameters.html) and 0.17 in
//       the Minnesota Stormwater Manual's table of soil water storage. The model's S
//       counts from the residual water, so the lower value gives
//       S' = (0.10 - 0.020) / 0.417 = 0.19 and the higher 0.36. --ideal-saturation
//       varies it.
//
// Why the model falls behind Green-Ampt (by ~11% at most with S' = 0.19, more with a
// larger S'): its capillary flux is k_p grad theta, which vanishes where the sand is
// soaked, so a saturated zone passes only K. In Green-Ampt (and Richards' equation) the
// suction at the front pulls through the whole saturated zone, i = K (1 + psi / L). Once
// the model's wetting zone reaches its travelling shape (sooner the larger S' is: the
// drainage f(S) then lags S more) the surface takes only K.
//
// The top cell layer stands for the ponded surface: after every step its sand is refilled
// to theta = n, and the water that takes is counted. The scheme imposes S = 1 at that
// layer's centre (as in test_wet_sand), which is the surface here: F counts the refills
// minus the held layer's upper half, and depths are measured from that centre.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "decomposition/halo.hpp"
#include "decomposition/reductions.hpp"
#include "decomposition/topology.hpp"
#include "io/case_config.hpp"
#include "src/grid/mac_grid.hpp"
#include "src/wet/percolation.hpp"
#include "src/particles/seeding.hpp"
#include "src/driver/simulation.hpp"

using namespace dunesim;

namespace {

// A soil's Green-Ampt parameters, SI units.
struct GreenAmptSoil {
  double total_porosity;
  double effective_porosity;  // dtheta for a soil that starts at its residual water
  double suction_head;        // psi, m
  double conductivity;        // K, m/s
  double water_deficit() const { return effective_porosity; }
};

// Rawls, Brakensiek & Miller (1983), texture class sand.
constexpr GreenAmptSoil kRawlsSand{0.437, 0.417, 0.0495, 11.78 / 100 / 3600};
// Field capacity of sand, volumetric (see the header): S' = its water above the residual.
constexpr double kSandFieldCapacity = 0.10;
const double kFieldCapacitySaturation =
    (kSandFieldCapacity - (kRawlsSand.total_porosity - kRawlsSand.effective_porosity)) /
    kRawlsSand.effective_porosity;

// The model's porous sand for `soil` (mapping in the header).
MaterialSpec sand_for(const GreenAmptSoil& soil, double ideal_saturation) {
  MaterialSpec sand;
  sand.name = "sand";
  sand.kind = MaterialKind::Sand;
  sand.density = 1600;
  sand.wet.porosity = soil.effective_porosity;
  sand.wet.conductivity = soil.conductivity;
  sand.wet.propagation_rate =
      M_PI * soil.conductivity * soil.suction_head / (2 * soil.water_deficit());
  sand.wet.ideal_saturation = ideal_saturation;
  return sand;
}

// Green-Ampt under ponding: K t = F - a ln(1 + F / a), a = psi dtheta, solved for F by
// Newton. The right side is increasing and convex in F, so Newton converges from any
// F > 0; sqrt(2 a K t), which F exceeds, starts it near the answer at early times.
double green_ampt_infiltration(const GreenAmptSoil& soil, double t) {
  const double a = soil.suction_head * soil.water_deficit(), kt = soil.conductivity * t;
  double f = std::max(kt, std::sqrt(2 * a * kt));
  for (int i = 0; i < 100 && f > 0; ++i) {
    const double residual = f - a * std::log1p(f / a) - kt;
    const double step = residual / (f / (a + f));
    f -= step;
    if (std::abs(step) < 1e-14 * f) break;
  }
  return f;
}

struct Options {
  double cell = 0.01;        // m
  double depth = 1.0;        // m of sand (the front reaches 0.7 m in 2 h)
  int width_cells = 3;       // cells across the column, both ways (at least the ghost width)
  double end = 7200;         // s
  double sample_every = 30;  // s between samples (CSV rows)
  double compare_from = 60;  // s: the max difference is taken over [compare_from, end]
  double ideal_saturation = kFieldCapacitySaturation;
  std::string csv;
};

// The model's state at one time, all ranks.
struct Sample {
  double time = 0;
  double infiltrated = 0;   // F, m
  double front = 0;         // depth of the S = 1/2 level below the surface, m
  double stored_water = 0;  // water in the column's pores, m (equals the refills)
};

// A column of dry porous sand, width_cells^2 cells across, on all ranks of `comm`.
class PondedColumn {
 public:
  PondedColumn(const Options& options, const MaterialSpec& sand, MPI_Comm comm)
      : config_(column_case(options, sand)),
        topo_(comm, config_.cells, Simulation::ghost_width(config_.cfl)),
        halo_(topo_) {
    grid_.allocate(topo_, config_.cell_size);
    grid_.allocate_pore_water(topo_);
    particles_ = seed_particles(config_, topo_, grid_.solid);
    flood_top_layer();
  }

  // Percolation for dt (one substep when dt is at most the substep limit), then the pond
  // refills the top layer.
  void advance(double dt) {
    substeps_ += percolate_pore_water(topo_, halo_, config_.materials, sand(), config_.gravity,
                                      dt, grid_, particles_);
    flood_top_layer();
  }

  Sample measure(double time) const;
  const Topology& topology() const { return topo_; }
  int64_t substeps() const { return substeps_; }
  const MaterialSpec& sand() const { return config_.materials[0]; }

 private:
  static CaseConfig column_case(const Options& o, const MaterialSpec& sand) {
    CaseConfig c;
    c.name = "green_ampt";
    const double width = o.width_cells * o.cell;
    c.domain_size = {width, width, o.depth};
    set_cell_size(c, o.cell);
    c.materials = {sand};
    SourceSpec source;
    source.material = 0;
    source.shape.max = c.domain_size;
    c.sources = {source};
    return c;
  }

  void flood_top_layer() {
    const int top = config_.cells[2] - 1;
    const double n = sand().wet.porosity;
    for (size_t q = 0; q < particles_.size(); ++q) {
      if (int(std::floor(particles_.z[q] / config_.cell_size)) != top) continue;
      refilled_ += n - particles_.water_content[q];
      particles_.water_content[q] = n;
    }
  }

  CaseConfig config_;
  Topology topo_;
  Halo halo_;
  MacGrid grid_;
  Particles particles_;
  double refilled_ = 0;  // water content added to this rank's particles
  int64_t substeps_ = 0;
};

// Depth below the top layer's centre where the layer saturation s (bottom layer first)
// first falls through 1/2 going down, linear between layer centres.
double half_saturation_depth(const std::vector<double>& s, double dx) {
  const int top = int(s.size()) - 1;
  for (int l = top; l > 0; --l)
    if (s[l] >= 0.5 && s[l - 1] < 0.5) return (top - l + (s[l] - 0.5) / (s[l] - s[l - 1])) * dx;
  return 0;
}

Sample PondedColumn::measure(double time) const {
  const int layers = config_.cells[2];
  const double dx = config_.cell_size, n = sand().wet.porosity;
  // Per layer: water content and particles; then the refills.
  std::vector<double> sums(2 * layers + 1, 0.0);
  for (size_t q = 0; q < particles_.size(); ++q) {
    const int layer = int(std::floor(particles_.z[q] / dx));
    sums[2 * layer] += particles_.water_content[q];
    sums[2 * layer + 1] += 1;
  }
  sums[2 * layers] = refilled_;
  global_sum_in_place(topo_, sums.data(), int(sums.size()));
  std::vector<double> saturation(layers);
  double stored = 0;
  for (int l = 0; l < layers; ++l) {
    saturation[l] = sums[2 * l] / sums[2 * l + 1] / n;
    stored += sums[2 * l] / sums[2 * l + 1] * dx;  // theta times the layer's thickness
  }
  const double per_layer = sums[1];  // particles in a layer (the same in all)
  Sample s;
  s.time = time;
  s.infiltrated = sums[2 * layers] / per_layer * dx - 0.5 * n * dx;
  s.front = half_saturation_depth(saturation, dx);
  s.stored_water = stored;
  return s;
}

// Times of the printed rows, s: from the sorptivity-dominated start (psi dtheta / K is
// 630 s for this sand) to the gravity-dominated end.
const std::vector<double> kTableTimes{60,   120,  300,  600,  900,  1200, 1800, 2400,
                                      3000, 3600, 4800, 6000, 7200, 9000, 10800};

bool is_table_time(double t) {
  for (double row : kTableTimes)
    if (std::abs(t - row) < 1e-6) return true;
  return false;
}

double relative_difference(const Sample& s) {
  return s.infiltrated / green_ampt_infiltration(kRawlsSand, s.time) - 1;
}

void print_header(const Options& o, const MaterialSpec& sand, const Index3& ranks) {
  const WetSandSpec& w = sand.wet;
  const double a = kRawlsSand.suction_head * kRawlsSand.water_deficit();
  std::printf(
      "Green-Ampt sand (Rawls, Brakensiek & Miller 1983): theta_e %.3f, psi %.2f cm, "
      "K %.2f cm/h; psi dtheta / K = %.0f s\n",
      kRawlsSand.effective_porosity, 100 * kRawlsSand.suction_head,
      100 * 3600 * kRawlsSand.conductivity, a / kRawlsSand.conductivity);
  std::printf(
      "model: n %.3f, K %.4g m/s, k_p %.4g m^2/s, S' %.3f; cell %.4f m, column %.2f m "
      "x %d x %d cells, ranks %dx%dx%d, substep limit %.3f s\n",
      w.porosity, w.conductivity, w.propagation_rate, w.ideal_saturation, o.cell, o.depth,
      o.width_cells, o.width_cells, ranks[0], ranks[1], ranks[2],
      percolation_substep_limit(w, o.cell));
  std::printf("%8s %10s %10s %8s %12s %12s\n", "t [s]", "F [cm]", "F_GA [cm]", "diff",
              "front [cm]", "front_GA [cm]");
}

void print_row(const Sample& s) {
  const double ga = green_ampt_infiltration(kRawlsSand, s.time);
  std::printf("%8.0f %10.3f %10.3f %+7.1f%% %12.2f %12.2f\n", s.time, 100 * s.infiltrated,
              100 * ga, 100 * relative_difference(s), 100 * s.front,
              100 * ga / kRawlsSand.water_deficit());
}

void write_csv(const std::string& path, const Options& o, const MaterialSpec& sand,
               const std::vector<Sample>& samples) {
  std::ofstream out(path);
  out << "# ideal_saturation=" << sand.wet.ideal_saturation << " cell=" << o.cell
      << " propagation_rate=" << sand.wet.propagation_rate << "\n";
  out << "t_s,F_model_m,F_green_ampt_m,front_model_m,front_green_ampt_m\n";
  for (const Sample& s : samples) {
    const double ga = green_ampt_infiltration(kRawlsSand, s.time);
    out << s.time << ',' << s.infiltrated << ',' << ga << ',' << s.front << ','
        << ga / kRawlsSand.water_deficit() << '\n';
  }
}

// Runs the column to o.end, sampling every o.sample_every; prints the table rows on rank 0.
std::vector<Sample> run_column(PondedColumn& column, const Options& o, bool rank0) {
  const double limit = percolation_substep_limit(column.sand().wet, o.cell);
  std::vector<Sample> samples;
  double t = 0;
  for (int k = 1; k * o.sample_every <= o.end + 1e-9; ++k) {
    const double next = k * o.sample_every;
    while (next - t > 1e-9) {
      const double dt = std::min(limit, next - t);
      column.advance(dt);
      t += dt;
    }
    samples.push_back(column.measure(next));
    if (rank0 && is_table_time(next)) print_row(samples.back());
  }
  return samples;
}

// Prints the comparison and returns whether it holds: F within 15% of Green-Ampt's from
// --compare-from on (the model's structural deficit, up to 11.4% at S' = 0.19 and 1 cm,
// explained above, plus room for the cell size), and the pores holding what the pond gave to
// 1e-9.
bool print_summary(const Options& o, const std::vector<Sample>& samples, int ranks,
                   int64_t substeps, double wall) {
  if (samples.empty()) return false;
  const Sample* worst = nullptr;
  for (const Sample& s : samples)
    if (s.time >= o.compare_from - 1e-9 &&
        (!worst || std::abs(relative_difference(s)) > std::abs(relative_difference(*worst))))
      worst = &s;
  const Sample& last = samples.back();
  const double refilled = last.infiltrated + 0.5 * kRawlsSand.effective_porosity * o.cell;
  if (worst)
    std::printf(
        "max |F / F_GA - 1| over t in [%.0f, %.0f] s: %.1f%% (at t = %.0f s); "
        "within 15%%: %s\n",
        o.compare_from, o.end, 100 * std::abs(relative_difference(*worst)), worst->time,
        std::abs(relative_difference(*worst)) <= 0.15 ? "yes" : "no");
  std::printf("water balance: pores hold %.6f m, the pond gave %.6f m (%.1e relative)\n",
              last.stored_water, refilled, last.stored_water / refilled - 1);
  std::printf("ranks %d, cell %.4f m, S' %.3f: %lld substeps, %.2f s wall\n", ranks, o.cell,
              o.ideal_saturation, (long long)substeps, wall);
  return worst && std::abs(relative_difference(*worst)) <= 0.15 &&
         std::abs(last.stored_water / refilled - 1) <= 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Green-Ampt infiltration benchmark of the percolation stage"};
  Options o;
  app.add_option("--cell", o.cell, "cell size, m");
  app.add_option("--depth", o.depth, "depth of the sand column, m");
  app.add_option("--width-cells", o.width_cells, "cells across the column");
  app.add_option("--end", o.end, "simulated time, s");
  app.add_option("--sample-every", o.sample_every, "s between samples (CSV rows)");
  app.add_option("--compare-from", o.compare_from, "start of the span of the max difference, s");
  app.add_option("--ideal-saturation", o.ideal_saturation,
                 "S' (default: sand's field capacity, " +
                     std::to_string(kFieldCapacitySaturation) + ")");
  app.add_option("--csv", o.csv, "write every sample to this CSV file (rank 0)");
  CLI11_PARSE(app, argc, argv);

  MPI_Init(&argc, &argv);
  int status = 1;  // 0 when the law and the water balance hold (print_summary)
  {
    bool failed = false;  // rank 0 judges; the others learn its verdict
    const MaterialSpec sand = sand_for(kRawlsSand, o.ideal_saturation);
    PondedColumn column(o, sand, MPI_COMM_WORLD);
    const Topology& topo = column.topology();
    const bool rank0 = topo.rank() == 0;
    if (rank0) print_header(o, sand, topo.dims());
    const auto start = std::chrono::steady_clock::now();
    const std::vector<Sample> samples = run_column(column, o, rank0);
    const double wall = global_max(
        topo, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (rank0) failed = !print_summary(o, samples, topo.size(), column.substeps(), wall);
    if (rank0 && !o.csv.empty()) write_csv(o.csv, o, sand, samples);
    status = any_rank(topo, failed) ? 1 : 0;
  }
  MPI_Finalize();
  return status;
}

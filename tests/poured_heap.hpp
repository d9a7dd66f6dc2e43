// A heap of dry sand poured from a nozzle onto a rough floor, in a slab a few cells thick
// with frictionless sides (a 2D heap), and the slope of its flanks. Used by test_sand_pile
// and by the pour_angle benchmark, which varies the pour.
#pragma once
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <vector>

#include "decomposition/reductions.hpp"
#include "src/driver/simulation.hpp"

namespace dunesim::test {

struct PourSpec {
  double friction_angle = 30;   // degrees
  double cell = 0.01;           // m
  double length = 0.6;          // m, the floor along x
  double height = 0.3;          // m, the domain's height
  int slab_cells = 4;           // cells across the slab (y)
  double nozzle_width = 0.04;   // m, along x, centred
  double nozzle_height = 0.2;   // m, the nozzle's lower edge above the floor
  double nozzle_speed = 0.5;    // m/s, downward speed of the poured sand
  double pour_time = 1.0;       // s, emit_until
  double settle_time = 0.5;     // s after the pour ends
  double rest_window = 0.5;     // s before the end over which surface_change is taken
  double floor_friction = 0.6;  // Coulomb mu of the floor
  uint64_t seed = 1;            // of the seeding jitter
  int balance_interval = 20;    // steps between load-balance checks (0: never)
  // The sand model, as the case keys give it: by default the validated one (APIC, rigid cells'
  // own velocity, Culmann's wedges) for Zhu & Bridson's rheology, 95% PIC and neither option
  // for the others and with zhu_bridson_2005; a field that is set overrides its default.
  bool zhu_bridson_2005 = false;                 // model = "zhu_bridson_2005"
  std::optional<Transfer> transfer;              // the sand's
  double flip_ratio = 0.05;                      // used with Transfer::Flip only
  std::optional<bool> rigid_cells_own_velocity;  // rigid_cell_velocity = "own_cell"
  std::optional<bool> culmann_wedges_yield;      // culmann_wedges_yield
  SandRheology::Kind rheology = SandRheology::Kind::ZhuBridson;
  double dynamic_friction_angle = 0;  // degrees, mu_i only; 0: the cases' default (below)
  double cfl = 1.0;                   // cells a particle may cross per step
  double max_dt = 0.01;               // s
  int friction_substeps = 0;  // 0: the default of friction_substeps() (sand_plasticity.hpp)
  SandRheology::YieldSurface yield_surface = SandRheology::YieldSurface::DruckerPrager;
  FreeSurface free_surface = FreeSurface::FirstOrder;  // [pressure] free_surface
};

inline CaseConfig poured_heap_case(const PourSpec& s) {
  CaseConfig c;
  c.file = "<test>";
  c.name = "poured_heap";
  c.domain_size = {s.length, s.slab_cells * s.cell, s.height};
  set_cell_size(c, s.cell);
  c.seed = s.seed;
  MaterialSpec sand;
  sand.name = "sand";
  sand.kind = MaterialKind::Sand;
  sand.density = 1600;
  const SandModelDefaults model =
      sand_model_defaults(s.rheology == SandRheology::Kind::ZhuBridson, s.zhu_bridson_2005,
                          c.gravity);
  sand.flip_ratio = s.flip_ratio;
  sand.transfer = s.transfer.value_or(model.apic ? Transfer::Apic : Transfer::Flip);
  sand.rheology.kind = s.rheology;
  sand.rheology.friction_substeps = s.friction_substeps;
  sand.rheology.yield_surface = s.yield_surface;
  // The case reader's default: SandRheology's, or phi where phi is larger.
  sand.rheology.dynamic_friction_angle_deg =
      s.dynamic_friction_angle > 0
          ? s.dynamic_friction_angle
          : std::max(s.friction_angle, sand.rheology.dynamic_friction_angle_deg);
  sand.rheology.rigid_cells_own_velocity =
      s.rigid_cells_own_velocity.value_or(model.rigid_cells_own_velocity);
  sand.rheology.culmann_wedges_yield =
      s.culmann_wedges_yield.value_or(model.culmann_wedges_yield);
  sand.rheology.resting_grains_hold = model.resting_grains_hold;
  if (make_sand_model(sand)->carries_particle_stress())
    sand.rheology.surface_static_friction = false;
  sand.friction_angle_deg = s.friction_angle;
  c.materials.push_back(sand);
  SourceSpec nozzle;
  nozzle.shape.kind = ShapeSpec::Kind::Block;
  nozzle.shape.min = {0.5 * (s.length - s.nozzle_width), 0.0, s.nozzle_height};
  nozzle.shape.max = {0.5 * (s.length + s.nozzle_width), c.domain_size[1],
                      s.nozzle_height + 2 * s.cell};
  nozzle.velocity = {0, 0, -s.nozzle_speed};
  nozzle.emit_until = s.pour_time;
  c.sources.push_back(nozzle);
  // The box walls slip (so the slab's sides do not hold the heap up); the floor is a rough
  // collider one cell thick.
  c.wall_friction = 0.0;
  ColliderSpec floor;
  floor.shape.kind = ShapeSpec::Kind::Block;
  floor.shape.min = {-1.0, -1.0, -1.0};
  floor.shape.max = {s.length + 1.0, c.domain_size[1] + 1.0, s.cell};
  floor.friction = s.floor_friction;
  c.colliders.push_back(floor);
  c.pressure.rtol = 1e-6;
  c.pressure.free_surface = s.free_surface;
  c.cfl = s.cfl;
  c.max_dt = s.max_dt;
  c.load_balance.interval_steps = s.balance_interval;
  c.output.directory = "test_output";
  return c;
}

struct HeapShape {
  double left_slope_deg = 0, right_slope_deg = 0;  // flanks between 20% and 80% of the top
  double top = 0;                                  // m above the floor's surface
  double base = 0;                                 // m, the width of the columns holding sand
  double max_speed = 0;                            // m/s
  // m, the largest and the mean change of a column's surface over the last `rest_window` s,
  // the mean over the columns that hold sand (pour_heap)
  double surface_change = 0, mean_surface_change = 0;
  int64_t particles = 0;        // at the end
  int64_t created = 0;          // seeded at the start plus emitted
  std::vector<double> surface;  // m above the floor, per column of cells along x
  double mean_slope_deg() const { return 0.5 * (left_slope_deg + right_slope_deg); }
};

// The surface of each column of cells along x is its highest particle resting on the heap
// (see below); each flank's slope is the least-squares line through the columns whose
// surface lies between 20% and 80% of the top (collective).
inline HeapShape measure_heap(const Simulation& sim, double floor_height) {
  const CaseConfig& c = sim.config();
  const int columns = c.cells[0];
  const double dx = c.cell_size;
  std::vector<double> surface(columns, 0.0);
  HeapShape heap;
  const Particles& p = sim.particles();
  // Grains in flight (the stream, a grain bouncing off the heap) are not the surface: a
  // column's surface is the highest particle of the run of occupied cells that rises from
  // the floor.
  const int layers = c.cells[2];
  std::vector<double> occupied(size_t(columns) * layers, 0.0);
  auto layer_of = [&](size_t n) { return std::clamp(int(p.z[n] / dx), 0, layers - 1); };
  auto column_of = [&](size_t n) { return std::clamp(int(p.x[n] / dx), 0, columns - 1); };
  for (size_t n = 0; n < p.size(); ++n) occupied[size_t(column_of(n)) * layers + layer_of(n)] = 1;
  global_sum_in_place(sim.topology(), occupied.data(), int(occupied.size()));
  std::vector<int> top_layer(columns, -1);
  const int first_layer = int(std::lround(floor_height / dx));
  for (int col = 0; col < columns; ++col)
    for (int k = first_layer; k < layers && occupied[size_t(col) * layers + k] > 0; ++k)
      top_layer[col] = k;
  for (size_t n = 0; n < p.size(); ++n) {
    const int col = column_of(n);
    if (layer_of(n) <= top_layer[col])
      surface[col] = std::max(surface[col], p.z[n] - floor_height);
    heap.max_speed = std::max(heap.max_speed, p.speed(n));
  }
  for (double& h : surface) h = global_max(sim.topology(), h);
  heap.max_speed = global_max(sim.topology(), heap.max_speed);
  heap.particles = global_sum(sim.topology(), int64_t(p.size()));

  const int peak = int(std::max_element(surface.begin(), surface.end()) - surface.begin());
  heap.top = surface[peak];
  heap.base =
      dx * double(std::count_if(surface.begin(), surface.end(), [](double h) { return h > 0; }));
  auto slope_deg = [&](int first, int last) {
    double sx = 0, sz = 0, sxx = 0, sxz = 0, count = 0;
    for (int col = first; col < last; ++col) {
      if (surface[col] < 0.2 * heap.top || surface[col] > 0.8 * heap.top) continue;
      const double x = (col + 0.5) * dx;
      sx += x;
      sz += surface[col];
      sxx += x * x;
      sxz += x * surface[col];
      count += 1;
    }
    if (count < 2) return 90.0;  // a wall of sand: no column in the band
    const double gradient = (count * sxz - sx * sz) / (count * sxx - sx * sx);
    return std::atan(std::abs(gradient)) * 180.0 / M_PI;
  };
  heap.surface = surface;
  heap.left_slope_deg = slope_deg(0, peak);
  heap.right_slope_deg = slope_deg(peak + 1, columns);
  return heap;
}

// Pours the heap and lets it settle (collective). `progress`, if given, is called after
// every step (collectively).
inline HeapShape pour_heap(const PourSpec& s, MPI_Comm comm,
                           const std::function<void(const Simulation&)>& progress = {}) {
  Simulation sim(poured_heap_case(s), comm);
  const int64_t seeded = global_sum(sim.topology(), int64_t(sim.particles().size()));
  const double end = s.pour_time + s.settle_time;
  std::vector<double> earlier;  // the surface rest_window before the end
  while (sim.time() < end) {
    if (earlier.empty() && sim.time() >= end - s.rest_window)
      earlier = measure_heap(sim, s.cell).surface;
    sim.step(sim.stable_dt());
    if (progress) progress(sim);
  }
  HeapShape heap = measure_heap(sim, s.cell);
  int sand_columns = 0;
  for (size_t col = 0; col < earlier.size(); ++col) {
    const double change = std::abs(heap.surface[col] - earlier[col]);
    heap.surface_change = std::max(heap.surface_change, change);
    if (heap.surface[col] > 0 || earlier[col] > 0) {
      heap.mean_surface_change += change;
      ++sand_columns;
    }
  }
  if (sand_columns > 0) heap.mean_surface_change /= sand_columns;
  heap.created = seeded + global_sum(sim.topology(), sim.emitted_particles());
  return heap;
}

}  // namespace dunesim::test

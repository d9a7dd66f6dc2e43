// One rank's block of the staggered (MAC) grid plus ghost layers, in global indices.
//
// Velocity component a lives on the a-faces: vel[0](i,j,k) is u at x = i*dx,
// y = (j+1/2)*dx, z = (k+1/2)*dx. Cell (i,j,k) spans [i,i+1)*dx on x, and so on.
// Cells outside the global domain are solid: they are the box walls.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "decomposition/array3.hpp"
#include "decomposition/connected_components.hpp"
#include "decomposition/topology.hpp"
#include "src/grid/wall_face_values.hpp"

namespace dunesim {

enum CellType : uint8_t { kAir = 0, kFluid = 1, kSolid = 2 };

// True when one of the six cells around (i,j,k) is air: a fluid cell there lies on the free
// surface. `type` must cover them (a ghost layer at the block's edge).
inline bool has_air_neighbour(const Array3<uint8_t>& type, int i, int j, int k) {
  const uint8_t* cell = &type(i, j, k);
  for (int a = 0; a < 3; ++a) {
    const int64_t step = type.stride(a);
    if (cell[step] == kAir || cell[-step] == kAir) return true;
  }
  return false;
}

// True when cell (i,j,k) holds sand. The sand arrays cover only the sand window
// (src/particles/sand_window.hpp), outside which no cell holds sand.
inline bool holds_sand(const Array3<uint8_t>& sand_cells, int i, int j, int k) {
  return sand_cells.box().contains(i, j, k) && sand_cells(i, j, k);
}

struct MacGrid {
  double dx = 1;
  std::array<Array3<double>, 3> vel;  // face velocities, m/s
  // After P2G, for the FLIP increment (P2G sums its weights here before the save). Single
  // precision: the increment new - saved needs no more digits than the particle velocities
  // it is added to, and in double the array would take 24 bytes per cell instead of 12.
  std::array<Array3<float>, 3> vel_saved;
  Array3<uint8_t> cell_type;    // kAir / kFluid / kSolid
  Array3<uint8_t> solid;        // static solids (walls, colliders): 1 = solid
  Array3<float> density;        // mean particle density of fluid cells, kg/m^3
  Array3<double> pressure;      // Pa, fluid cells; 0 in air
  Array3<double> cell_scratch;  // P2G: particles per cell; projection: its right-hand
                                // side; second projection: that and then its correction
  // The particle window (src/particles/particle_window.hpp), global: outside it P2G finds no
  // particle, and the velocities (saved ones too), P2G's sums and counts and the densities
  // are all 0, so P2G clears only this window and the one before it, and gravity and the
  // velocities' save act only within it.
  // Box::everywhere() while unknown: after the arrays are made, before the first P2G.
  Box particle_window = Box::everywhere();

  // Sand only: allocated by allocate_sand() when the case has a sand material. Sand fills a
  // small part of most grids, so its arrays cover only the block's part of the sand window,
  // a box of the global grid around all the sand particles that every rank agrees on
  // (sand_window.hpp); outside it there is no sand. Within it the sand stages look only near
  // sand_region: rigid, yielding and stress are zero outside it, and wall_normal_speed
  // covers only the faces near it.
  Box sand_window;           // global; Box{} until the first step fits it to the sand
  Array3<uint8_t> sand;      // fluid cells whose particles are mostly sand
  Array3<float> sand_count;  // sand particles per cell (P2G, halo-filled); whole numbers, exact
  Box sand_region;           // bounding box of the sand cells, ghosts included
  Array3<uint8_t> rigid;     // sand cells that did not yield this step
  Array3<uint8_t> yielding;  // sand cells that yielded this step
  Array3<float> wall_mu;     // Coulomb coefficient of each solid cell
  // |u_n| the walls remove, on their faces near the sand; the sand stage's scratch, freed
  // when it ends.
  WallFaceValues wall_normal_speed;
  // Connected groups of rigid cells, from the rigid-cluster stage to G2P; freed after it.
  ComponentLabels rigid_clusters;
  // Sand stress (xx yy zz xy xz yz), Pa; scratch. Single precision, as the particles carry
  // it: seven digits are far finer than the yield test and the friction it feeds, and the
  // six components are the largest share of a sand grid's memory.
  std::array<Array3<float>, 6> stress;

  // Sand that carries a stress between steps, elastic-plastic or rigid-plastic
  // (allocate_elastic_sand()). grid.stress then holds the stress at the start of the stage, its
  // diagonal at cell centres and its shear components on cell edges
  // (src/sand/elastic_plastic_sand.hpp); these keep what it was when the step began, so that the
  // particles receive the change, and the substeps' yield scale.
  std::array<Array3<float>, 6> stress_at_step_start;
  Array3<float> yield_scale;
  // Rigid-plastic sand only (allocate_wall_force()): the walls' friction force per volume
  // (N/m^3) on each face last step, face (a, i,j,k) at index (i,j,k), so that the next
  // step's solve starts from it (the walls do not move; src/sand/rigid_plastic_sand.hpp). Over
  // the whole block, so that it outlives the sand window's moves, and in double, so that a
  // checkpoint stores it as a cell field and a restart continues bit for bit.
  std::array<Array3<double>, 3> wall_force;
  // Resting grains holding only (allocate_sand_rest_steps()): the steps each loose cell's sand
  // has stayed slower than friction stops within a step, up to 255 (src/sand/resting_grains.hpp).
  // Over the whole block, as wall_force, and carried between steps; a byte a cell.
  Array3<uint8_t> sand_rest_steps;

  // The arrays a step reads before it writes them, the next solves' initial guesses: the
  // pressure, and rigid-plastic sand's wall friction force where it is allocated. Without
  // them a run converges to a slightly different pressure and stress, so a checkpoint
  // stores them and a re-cut moves them to the new blocks.
  struct CarriedArray {
    std::string name;  // a checkpoint's grid/<name>
    Array3<double>* array;
    bool in_every_checkpoint;  // false: older checkpoints lack it; it then starts at zero
  };
  std::vector<CarriedArray> carried_between_steps() {
    std::vector<CarriedArray> arrays{{"pressure", &pressure, true}};
    if (has_wall_force())
      for (int a = 0; a < 3; ++a)
        arrays.push_back({std::string("wall_force_") + "xyz"[a], &wall_force[a], false});
    if (pore_release.size() > 0) arrays.push_back({"pore_release", &pore_release, false});
    if (pore_head.size() > 0) arrays.push_back({"pore_head", &pore_head, false});
    return arrays;
  }
  // The same for counts held in bytes (a checkpoint and a re-cut carry them as bytes).
  struct CarriedCounts {
    std::string name;
    Array3<uint8_t>* array;
  };
  std::vector<CarriedCounts> carried_counts_between_steps() {
    if (sand_rest_steps.size() == 0) return {};
    return {{"sand_rest_steps", &sand_rest_steps}};
  }

  // Wet sand only: allocated by allocate_pore_water() when the sand holds water.
  Array3<float> saturation;      // mean S of the cell's sand particles (P2G)
  Array3<double> pore_count;     // porous sand particles per cell; scratch of
  Array3<double> pore_water;     // ... the water content they hold (sum); the
  Array3<double> pore_exchange;  // ... absorption and percolation stages
  Array3<double> pore_uptake;
  // Only where the sand materials' porosities differ: the pores of each cell's porous
  // particles in units of the first sand's (src/particles/pore_water.hpp).
  Array3<double> pore_volume;
  // Richards' pore water only (allocate_pore_release()): water that left the sand and is
  // owed to free water in each open cell, until it makes a particle (src/wet/richards.hpp).
  Array3<double> pore_release;
  // Friction on the effective stress only (allocate_pore_head()): the pore water's pressure
  // head h (m) of Richards' last solve, 0 where it did not solve (src/wet/effective_stress.hpp).
  Array3<double> pore_head;

  // Ghost-fluid free surface only (allocate_surface()): the level set of the cells'
  // smoothed fill at cell centres, negative inside (free_surface.hpp), and a scratch array.
  Array3<float> surface_phi;
  Array3<float> surface_scratch;

  // Bytes per cell of the arrays allocate() makes, and of those allocate_sand() (over the
  // sand window, with the rigid-cluster labels the step fills), allocate_elastic_sand()
  // (over the sand window), allocate_wall_force(), allocate_sand_rest_steps(),
  // allocate_pore_water() (and where porosities differ), allocate_pore_release(),
  // allocate_pore_head() and allocate_surface() add. Ghost cells, the extra layer of faces and
  // the arrays sized to the sand's region are left out, so a grid needs at least its block's
  // share of the per-block bytes. Keep in step with the allocate functions below.
  static constexpr size_t kBytesPerCell = 3 * (sizeof(double) + sizeof(float))  // vel, vel_saved
                                          + 2 * sizeof(uint8_t)          // cell_type, solid
                                          + sizeof(float)                // density
                                          + 2 * sizeof(double);          // pressure, cell_scratch
  static constexpr size_t kSandWindowBytesPerCell = 3 * sizeof(uint8_t)  // sand, rigid, yielding
                                                    + 2 * sizeof(float)  // sand_count, wall_mu
                                                    + 6 * sizeof(float)  // stress
                                                    + sizeof(int64_t);   // rigid_clusters
  static constexpr size_t kElasticSandWindowBytesPerCell =
      7 * sizeof(float);  // stress_at_step_start, yield_scale
  static constexpr size_t kWallForceBytesPerCell = 3 * sizeof(double);   // wall_force
  static constexpr size_t kRestingGrainsBytesPerCell = sizeof(uint8_t);  // sand_rest_steps
  static constexpr size_t kPoreWaterBytesPerCell =
      sizeof(float) + 4 * sizeof(double);  // saturation; pore_count .. pore_uptake
  static constexpr size_t kRichardsBytesPerCell = sizeof(double);           // pore_release
  static constexpr size_t kEffectiveStressBytesPerCell = sizeof(double);    // pore_head
  static constexpr size_t kSeveralPorositiesBytesPerCell = sizeof(double);  // pore_volume
  static constexpr size_t kSurfaceBytesPerCell =
      2 * sizeof(float);  // surface_phi, surface_scratch

  // The same on every rank: a rank whose block misses the window still joins the halo calls.
  bool has_sand() const { return !sand_window.empty(); }
  bool has_pore_water() const { return saturation.size() > 0; }
  bool has_surface_phi() const { return surface_phi.size() > 0; }

  void allocate(const Topology& topo, double cell_size) {
    dx = cell_size;
    for (int a = 0; a < 3; ++a) {
      Stagger s = face_stagger(a);
      Box b = topo.local(s);
      vel[a].reset(b, s, 0.0);
      vel_saved[a].reset(b, s, 0.0f);
    }
    Box c = topo.local(Stagger::Cell);
    cell_type.reset(c, Stagger::Cell, kAir);
    solid.reset(c, Stagger::Cell, 0);
    density.reset(c, Stagger::Cell, 0.0f);
    pressure.reset(c, Stagger::Cell, 0.0);
    cell_scratch.reset(c, Stagger::Cell, 0.0);
    particle_window = Box::everywhere();
  }

  // The sand arrays over the block's part of `window` (the whole block by default), zero.
  // wall_mu is the caller's to mark.
  void allocate_sand(const Topology& topo, const Box& window = Box::everywhere()) {
    const Box c = topo.local(Stagger::Cell);
    sand_window = window;
    auto cut = [&](auto& array, auto value) {
      array.reset_within(c, window, Stagger::Cell, value);
    };
    cut(sand, uint8_t(0));
    cut(sand_count, 0.0f);
    sand_region = Box{};
    cut(rigid, uint8_t(0));
    cut(yielding, uint8_t(0));
    cut(wall_mu, 0.0f);
    wall_normal_speed.clear();  // filled by the friction stage
    rigid_clusters = {};
    for (Array3<float>& component : stress) cut(component, 0.0f);
  }

  // Over the same part of the sand window as allocate_sand's arrays.
  void allocate_elastic_sand(const Topology& topo) {
    const Box c = topo.local(Stagger::Cell);
    for (Array3<float>& component : stress_at_step_start)
      component.reset_within(c, sand_window, Stagger::Cell, 0.0f);
    yield_scale.reset_within(c, sand_window, Stagger::Cell, 1.0f);
  }

  // Over the block, zero.
  void allocate_wall_force(const Topology& topo) {
    for (Array3<double>& component : wall_force)
      component.reset(topo.local(Stagger::Cell), Stagger::Cell, 0.0);
  }
  bool has_wall_force() const { return wall_force[0].size() > 0; }

  // Over the block, zero.
  void allocate_sand_rest_steps(const Topology& topo) {
    sand_rest_steps.reset(topo.local(Stagger::Cell), Stagger::Cell, 0);
  }

  // Bytes this rank's sand-window arrays hold now (the rigid-cluster labels included).
  size_t sand_window_bytes() const {
    size_t bytes = sand.size() + rigid.size() + yielding.size() +
                   sizeof(float) * (sand_count.size() + wall_mu.size() + yield_scale.size()) +
                   sizeof(int64_t) * rigid_clusters.of_cell.size();
    for (int n = 0; n < 6; ++n)
      bytes += sizeof(float) * (stress[n].size() + stress_at_step_start[n].size());
    return bytes;
  }

  void allocate_pore_water(const Topology& topo, bool several_porosities = false) {
    Box c = topo.local(Stagger::Cell);
    saturation.reset(c, Stagger::Cell, 0.0f);
    for (Array3<double>* a : {&pore_count, &pore_water, &pore_exchange, &pore_uptake})
      a->reset(c, Stagger::Cell, 0.0);
    if (several_porosities) pore_volume.reset(c, Stagger::Cell, 0.0);
  }

  void allocate_pore_release(const Topology& topo) {
    pore_release.reset(topo.local(Stagger::Cell), Stagger::Cell, 0.0);
  }

  void allocate_pore_head(const Topology& topo) {
    pore_head.reset(topo.local(Stagger::Cell), Stagger::Cell, 0.0);
  }

  void allocate_surface(const Topology& topo) {
    Box c = topo.local(Stagger::Cell);
    surface_phi.reset(c, Stagger::Cell, 0.0f);
    surface_scratch.reset(c, Stagger::Cell, 0.0f);
  }

  // Position of face (i,j,k) of component a, and of a cell centre, in metres.
  std::array<double, 3> face_position(int a, int i, int j, int k) const {
    std::array<double, 3> p{(i + 0.5) * dx, (j + 0.5) * dx, (k + 0.5) * dx};
    p[a] -= 0.5 * dx;
    return p;
  }
  std::array<double, 3> cell_centre(int i, int j, int k) const {
    return {(i + 0.5) * dx, (j + 0.5) * dx, (k + 0.5) * dx};
  }
};

// The two cells on either side of a face of component a: (i,j,k) - e_a and (i,j,k).
inline Index3 lower_cell(int a, int i, int j, int k) {
  Index3 c{i, j, k};
  c[a] -= 1;
  return c;
}

}  // namespace dunesim

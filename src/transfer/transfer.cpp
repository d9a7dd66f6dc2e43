#include "src/transfer/transfer.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "src/grid/interpolation.hpp"
#include "src/particles/advection.hpp"
#include "src/particles/particle_window.hpp"

namespace dunesim {

namespace {

// A particle's affine velocity for component a, c_a (Particles::affine), per cell: the
// change of v_a across one cell along each axis.
void affine_per_cell(const AffineVelocity& affine, int a, double dx, double c[3]) {
  for (int d = 0; d < 3; ++d) c[d] = double(affine[3 * a + d]) * dx;
}

// Adds particle n's velocity component `va` to the weighted sums of the stencil's faces
// (velocities v, weights w). With an affine velocity c (per cell; nullptr for PIC/FLIP) each
// face gets the particle's velocity at the face, va + c . (x_face - x_p) (APIC, Jiang et al.
// 2015, eq. 9 with trilinear weights).
// The affine branch is a template argument: P2G is a hot loop, and PIC/FLIP runs should
// not test it at every corner of every particle. The corners' terms are worked out first;
// corners 2m and 2m + 1 are neighbours along x, so each pair is added with one two-wide
// load, add and store per array.
template <bool kAffine>
void spread_component(const Stencil& s, double va, const double* c, double* v, float* w) {
  typedef double Double2 __attribute__((vector_size(16)));
  typedef float Float2 __attribute__((vector_size(8)));
  Double2 add_v[4];
  Float2 add_w[4];
  for (int corner = 0; corner < 8; ++corner) {
    double at_face = va;
    if constexpr (kAffine) {
      double r[3];
      corner_offset(s, corner, r);
      at_face += c[0] * r[0] + c[1] * r[1] + c[2] * r[2];
    }
    add_v[corner / 2][corner % 2] = s.w[corner] * at_face;
    add_w[corner / 2][corner % 2] = float(s.w[corner]);
  }
  for (int pair = 0; pair < 4; ++pair) {
    Double2 sum_v;
    Float2 sum_w;
    std::memcpy(&sum_v, v + s.off[2 * pair], sizeof sum_v);
    std::memcpy(&sum_w, w + s.off[2 * pair], sizeof sum_w);
    sum_v += add_v[pair];
    sum_w += add_w[pair];
    std::memcpy(v + s.off[2 * pair], &sum_v, sizeof sum_v);
    std::memcpy(w + s.off[2 * pair], &sum_w, sizeof sum_w);
  }
}

// G2P of one APIC particle: its velocity becomes the grid's (PIC) and its affine velocity
// the gradient of the trilinear interpolant, sum_i u_i grad(w_i) (for trilinear weights
// the same as Jiang et al.'s B D^-1, whose D is diagonal). `grid` gets the grid's velocity
// at the particle in double.
void take_grid_velocity_affine(const MacGrid& g, const GridPoint& pt, size_t n, Particles& p,
                               std::array<double, 3>& grid) {
  float* vel_of[3] = {p.vx.data(), p.vy.data(), p.vz.data()};
  const double inv_dx = 1.0 / g.dx;
  AffineVelocity affine;
  for (int a = 0; a < 3; ++a) {
    const Stencil s = make_stencil(g.vel[a], a, pt);
    grid[a] = interpolate(g.vel[a], s);
    vel_of[a][n] = float(grid[a]);
    double grad[3];
    interpolate_gradient(g.vel[a], s, grad);
    for (int d = 0; d < 3; ++d) affine[3 * a + d] = float(grad[d] * inv_dx);
  }
  p.affine[n] = affine;
}

// Keeps only the rotation of particle n's affine velocity, (C - C^T) / 2 (RPIC, Jiang et al.
// 2015, section 5.2): angular momentum is still carried, the strain rate is dropped as PIC
// drops it.
void keep_rotation_only(size_t n, Particles& p) {
  AffineVelocity& c = p.affine[n];
  for (int a = 0; a < 3; ++a)
    for (int d = 0; d < a; ++d) {
      const float skew = 0.5f * (c[3 * a + d] - c[3 * d + a]);
      c[3 * a + d] = skew;
      c[3 * d + a] = -skew;
    }
  for (int a = 0; a < 3; ++a) c[4 * a] = 0.0f;
}

// The PIC/FLIP blend of a particle velocity vp: the new grid velocity (PIC) and the
// particle's own plus the grid's change since P2G (FLIP).
float flip_blend(float vp, double v_new, double v_old, double flip) {
  return float(flip * (double(vp) + v_new - v_old) + (1.0 - flip) * v_new);
}

// G2P of one PIC/FLIP particle; `grid` gets the grid's velocity at it.
void blend_grid_velocity(const MacGrid& g, const GridPoint& pt, double flip, size_t n,
                         Particles& p, std::array<double, 3>& grid) {
  float* vel_of[3] = {p.vx.data(), p.vy.data(), p.vz.data()};
  for (int a = 0; a < 3; ++a) {
    const Stencil s = make_stencil(g.vel[a], a, pt);
    float& vp = vel_of[a][n];
    grid[a] = interpolate(g.vel[a], s);
    vp = flip_blend(vp, grid[a], interpolate(g.vel_saved[a], s), flip);
  }
}

// True when the particle at pt lies in a rigid sand cell of this step (grid.rigid covers
// the block's part of the sand window; outside it no cell is rigid).
bool in_rigid_cell(const MacGrid& g, const GridPoint& pt) {
  const int i = pt.node[0], j = pt.node[1], k = pt.node[2];
  return g.has_sand() && g.rigid.box().contains(i, j, k) && g.rigid(i, j, k) != 0;
}

// Component a of a face field on a cell's own two a-faces, and linear between them.
struct OwnFaces {
  double lo, hi;
  template <class T>
  OwnFaces(const Array3<T>& v, const Index3& cell, int a) {
    Index3 upper = cell;
    ++upper[a];
    lo = v(cell[0], cell[1], cell[2]);
    hi = v(upper[0], upper[1], upper[2]);
  }
  // At a fraction `frac` of the cell along a.
  double at(double frac) const { return lo + frac * (hi - lo); }
};

// G2P of a particle in a rigid cell from that cell's own six faces, where its cluster's
// fitted motion is not at hand (take_rigid_motion): each component linear
// between the cell's two faces along its axis. The rigid fit gave those faces the cluster's
// motion, so the particle moves with its cluster; the trilinear stencil would also read the
// faces of the cells beside it, and next to a flow it drags the cluster's surface along. An
// affine velocity keeps the stretch along each axis the two faces give, nothing across;
// FLIP's change is read from the same faces.
void take_own_cell_velocity(const MacGrid& g, const GridPoint& pt, const MaterialSpec& material,
                            size_t n, Particles& p) {
  float* vel_of[3] = {p.vx.data(), p.vy.data(), p.vz.data()};
  const Index3 cell{pt.node[0], pt.node[1], pt.node[2]};
  for (int a = 0; a < 3; ++a) {
    const OwnFaces now(g.vel[a], cell, a);
    const double frac = pt.node_frac[a];
    float& vp = vel_of[a][n];
    if (material.transfer == Transfer::Flip) {
      vp = flip_blend(vp, now.at(frac), OwnFaces(g.vel_saved[a], cell, a).at(frac),
                      material.flip_ratio);
      continue;
    }
    vp = float(now.at(frac));
    AffineVelocity& c = p.affine[n];
    for (int d = 0; d < 3; ++d) c[3 * a + d] = 0.0f;
    if (material.transfer == Transfer::Apic) c[3 * a + a] = float((now.hi - now.lo) / g.dx);
  }
}

// The fitted motion of the rigid cluster holding a cell, or nullptr where there is none
// (no motions given, the cell in no cluster, or its cluster not fitted on this rank).
// Consecutive particles mostly share a cluster, so the map is searched only when the label
// changes.
class ClusterMotionLookup {
 public:
  ClusterMotionLookup(const ComponentLabels& labels, const RigidMotions* motions)
      : labels_(labels), motions_(motions) {}

  const RigidMotion* at(const Index3& cell) {
    if (!motions_ || !labels_.labelled.contains(cell[0], cell[1], cell[2])) return nullptr;
    const int64_t label = labels_(cell[0], cell[1], cell[2]);
    if (label < 0) return nullptr;
    if (label != label_) {
      label_ = label;
      const auto found = motions_->find(label);
      motion_ = found == motions_->end() ? nullptr : &found->second;
    }
    return motion_;
  }

 private:
  const ComponentLabels& labels_;
  const RigidMotions* motions_;
  int64_t label_ = -1;
  const RigidMotion* motion_ = nullptr;
};

// G2P of a particle in a rigid cell: its cluster's fitted motion at the particle, and under
// APIC and RPIC that motion's gradient (the rotation's skew matrix) as its affine velocity.
// The fit wrote the same motion into the cluster's faces, but the second projection then
// corrects those faces next to flowing and open cells, and particles that read them crept
// off clusters at rest: of a quarter cone 27 degrees steep (phi = 30, APIC) 10.4% of the
// summit's grains left it in 1.5 s reading the faces, 5.5% taking the motion (ApicCone in
// test_sand_physics).
void take_rigid_motion(const RigidMotion& m, bool affine, size_t n, Particles& p) {
  const std::array<double, 3> v = rigid_velocity_at(m, p.x[n], p.y[n], p.z[n]);
  p.vx[n] = float(v[0]);
  p.vy[n] = float(v[1]);
  p.vz[n] = float(v[2]);
  if (!affine) return;
  // d(v_a)/d(x_d) of v = w x r.
  const std::array<double, 3>& w = m.angular_velocity;
  p.affine[n] = {0.0f,         float(-w[2]), float(w[1]), float(w[2]), 0.0f,
                 float(-w[0]), float(-w[1]), float(w[0]), 0.0f};
}

}  // namespace

namespace {

// Refits the particle window and clears P2G's sums within it and the last one, outside which
// they are all 0 already (MacGrid::particle_window); returns the cleared box. The saved
// velocities hold the weight sums until P2G ends; the cell scratch, the particle counts.
Box clear_sums_in_window(const Topology& topo, const Particles& p, MacGrid& g) {
  const Box last_window = g.particle_window;
  g.particle_window = fit_particle_window(topo, p, g.dx, last_window);
  const Box cleared = hull(last_window, g.particle_window);
  for (int a = 0; a < 3; ++a) {
    g.vel[a].fill(faces_of_cells(cleared, a), 0.0);
    g.vel_saved[a].fill(faces_of_cells(cleared, a), 0.0f);
  }
  g.cell_scratch.fill(cleared, 0.0);
  g.density.fill(cleared, 0.0f);
  if (g.has_sand()) g.sand_count.fill(cleared, 0.0f);
  if (g.has_pore_water()) g.saturation.fill(cleared, 0.0f);
  return cleared;
}

// Each particle's momentum and weight onto the faces around it, its share of a particle,
// mass, sand and pore water onto its cell.
void spread_particles(const Particles& p, const std::vector<MaterialSpec>& materials,
                      MacGrid& g) {
  const bool track_sand = g.has_sand(), track_saturation = g.has_pore_water();
  const double dx = g.dx;
  const double inv_dx = 1.0 / dx;
  const float* vel_of[3] = {p.vx.data(), p.vy.data(), p.vz.data()};
  for (size_t n = 0; n < p.size(); ++n) {
    const GridPoint pt(p.x[n], p.y[n], p.z[n], inv_dx);
    for (int a = 0; a < 3; ++a) {
      Stencil s = make_stencil(g.vel[a], a, pt);
      double* v = g.vel[a].data() + s.base;
      float* w = g.vel_saved[a].data() + s.base;
      if (p.carries_affine) {
        double c[3];
        affine_per_cell(p.affine[n], a, dx, c);
        spread_component<true>(s, vel_of[a][n], c, v, w);
      } else {
        spread_component<false>(s, vel_of[a][n], nullptr, v, w);
      }
    }
    // A water particle partly absorbed into sand weighs what is left of it; a sand particle
    // carries its pore water.
    const MaterialSpec& material = materials[p.material[n]];
    const bool is_sand = material.kind == MaterialKind::Sand;
    const double water = p.water_of(n);
    const double share = is_sand ? 1.0 : water;
    const double density =
        is_sand ? material.density + water * material.wet.pore_water_density : material.density;
    const int i = pt.node[0], j = pt.node[1], k = pt.node[2];
    g.cell_scratch(i, j, k) += share;
    g.density(i, j, k) += float(share * density);
    if (track_sand && is_sand) g.sand_count(i, j, k) += 1.0f;
    if (track_saturation && is_sand && material.wet.holds_water())
      g.saturation(i, j, k) += float(p.water_content[n] / material.wet.porosity);
  }
}

// Momentum sums to velocities on the owned faces of the cleared box, outside which every
// velocity is 0 as this would leave it. Whole rows at a time, with selects, not branches.
void divide_by_weights(const Topology& topo, const Box& cleared, MacGrid& g) {
  for (int a = 0; a < 3; ++a)
    for_each_row(overlap(topo.owned(face_stagger(a)), faces_of_cells(cleared, a)),
                 [&](int i, int j, int k, int length) {
                   double* v = &g.vel[a](i, j, k);
                   const float* w = &g.vel_saved[a](i, j, k);
                   for (int n = 0; n < length; ++n)
                     v[n] = w[n] > 0.0f ? v[n] / double(w[n]) : 0.0;
                 });
}

// Each cell's type, mean density and sand flag from its sums. Static solids everywhere
// (walls outside the domain stay solid), then the owned cells of the cleared box (outside
// it no cell holds a particle). A cell holding less than kLeastFluidShare of a particle is
// air: water particles that gave nearly all their water to sand keep a remnant (1e-55 of a
// particle was seen), whose mass underflows the single-precision density to 0, and a fluid
// cell of density 0 makes the pressure solve divide by it.
void classify_cells(const Topology& topo, const Box& cleared, MacGrid& g) {
  constexpr double kLeastFluidShare = 1e-9;
  const Array3<double>& particle_count = g.cell_scratch;
  for (size_t n = 0; n < g.cell_type.size(); ++n)
    g.cell_type.data()[n] = g.solid.data()[n] ? kSolid : kAir;
  const Box owned = overlap(topo.owned_cells(topo.rank()), cleared);
  for_each_row(owned, [&](int i, int j, int k, int length) {
    const double* count = &particle_count(i, j, k);
    const uint8_t* solid = &g.solid(i, j, k);
    uint8_t* type = &g.cell_type(i, j, k);
    float* density = &g.density(i, j, k);
    for (int n = 0; n < length; ++n) {
      const bool fluid = count[n] > kLeastFluidShare && !solid[n];
      type[n] = fluid ? uint8_t(kFluid) : type[n];
      density[n] = fluid ? float(double(density[n]) / count[n]) : 0.0f;
    }
  });
  // A cell behaves as sand when most of its particles are sand. Every sand particle lies in
  // the sand window, so the cells outside it have none.
  if (!g.has_sand()) return;
  const bool track_saturation = g.has_pore_water();
  for_each_index(owned.intersect(g.sand.box()), [&](int i, int j, int k) {
    const double count = particle_count(i, j, k);
    const bool fluid = g.cell_type(i, j, k) == kFluid;
    g.sand(i, j, k) = fluid && 2.0 * g.sand_count(i, j, k) > count ? 1 : 0;
    if (track_saturation && g.sand_count(i, j, k) > 0)
      g.saturation(i, j, k) /= float(g.sand_count(i, j, k));
  });
}

}  // namespace

void particles_to_grid(const Particles& p, const std::vector<MaterialSpec>& materials, Halo& halo,
                       const Topology& topo, MacGrid& g) {
  const Box cleared = clear_sums_in_window(topo, p, g);
  spread_particles(p, materials, g);
  halo.sum<double, float>({&g.vel[0], &g.vel[1], &g.vel[2]},
                          {&g.vel_saved[0], &g.vel_saved[1], &g.vel_saved[2]});
  divide_by_weights(topo, cleared, g);
  classify_cells(topo, cleared, g);
  halo.fill<double, float, uint8_t>({&g.vel[0], &g.vel[1], &g.vel[2]}, {&g.density},
                                    {&g.cell_type});
  if (g.has_sand()) halo.fill<float, uint8_t>({&g.sand_count}, {&g.sand});
}

namespace {

// What carries particle n through advection after G2P.
struct Carrier {
  enum Kind { GridAtParticle, Grid, Cluster, OwnCellFaces } kind = Grid;
  // GridAtParticle: the grid's velocity at the particle, as G2P has just interpolated it.
  std::array<double, 3> grid_at_particle{};
  // Cluster: the fitted motion of the particle's rigid cluster (nullptr: the particle's own
  // velocity, which G2P read from its rigid cell's faces).
  const RigidMotion* motion = nullptr;
};

// True when G2P moves the particles of `material` in rigid cells with their rigid cluster
// rather than the grid.
bool may_move_with_cluster(const MaterialSpec& material) {
  return material.rheology.rigid_cells_own_velocity && material.kind == MaterialKind::Sand;
}

// True when `test` holds for one of cell c's six face-neighbours.
template <class Test>
bool any_face_neighbour(const Index3& c, Test&& test) {
  for (int a = 0; a < 3; ++a)
    for (int side : {-1, 1}) {
      Index3 n = c;
      n[a] += side;
      if (test(n)) return true;
    }
  return false;
}

// True when rigid cell c has a face-neighbour of yielding sand (grid.yielding is
// halo-filled; outside its box no cell yields).
bool beside_yielding_sand(const MacGrid& g, const Index3& c) {
  return any_face_neighbour(c, [&](const Index3& n) {
    return g.yielding.box().contains(n[0], n[1], n[2]) && g.yielding(n[0], n[1], n[2]) != 0;
  });
}

// True when water flows through sand cell c's faces: its sand holds pore water, or a
// face-neighbour is free water (a fluid cell whose particles are not mostly sand).
bool water_through(const MacGrid& g, const Index3& c) {
  if (g.has_pore_water() && g.saturation(c[0], c[1], c[2]) > 0) return true;
  return any_face_neighbour(c, [&](const Index3& n) {
    return g.cell_type(n[0], n[1], n[2]) == kFluid && !holds_sand(g.sand, n[0], n[1], n[2]);
  });
}

// What carries a particle at pt that G2P moved with its rigid cluster (`motion`, or nullptr
// where G2P read its cell's faces): the cluster's motion, unless its cell borders yielding
// sand, whose particles the grid's flux carries into the cell. Advected with the cluster
// there too, a resting cell beside a flow filled to 1.5 times its particles, and the
// pressure solve's iterations grew from 8 to 13 on the dune at 1e8. There the flux through
// the cell's own faces carries it (advect_in_own_cell): through the grid's trilinear
// stencil, which also reads the faces of the flowing cells beside it, the flow dragged the
// resting cell's grains along (the top grains of a cone at rest sank by a quarter of a cell
// where a few loose grains beside them rolled off;
// docs/findings/rigid_cells_move_with_their_cluster.md). Where water flows through the
// cell's faces, they carry the water's flux through the pores as well as the sand's, which
// the cell's grains do not follow whole: there the grid, as before (a submerged bank's face
// slumped 1.2 degrees further with the own faces; the same findings).
Carrier cluster_carrier(const MacGrid& g, const GridPoint& pt, const RigidMotion* motion) {
  Carrier carrier;
  const Index3 cell{pt.node[0], pt.node[1], pt.node[2]};
  if (!beside_yielding_sand(g, cell))
    carrier.kind = Carrier::Cluster;
  else
    carrier.kind = water_through(g, cell) ? Carrier::Grid : Carrier::OwnCellFaces;
  carrier.motion = motion;
  return carrier;
}

// Advection of particle n, in a rigid cell beside yielding sand, by its own cell's faces
// after the second projection: each component linear between the cell's two faces along its
// axis (the midpoint rule, in the cell it starts in). The projection leaves the cell's
// fluxes divergence-free, and so is this field inside it: the cell's grains make way for
// what the flow brings in through a face, and nothing else of the flow moves them.
void advect_in_own_cell(const MacGrid& g, double dt, const SolidPushOut& push_out, size_t n,
                        Particles& p) {
  const double inv_dx = 1.0 / g.dx;
  const GridPoint pt(p.x[n], p.y[n], p.z[n], inv_dx);
  const Index3 cell{pt.node[0], pt.node[1], pt.node[2]};
  const OwnFaces faces[3] = {{g.vel[0], cell, 0}, {g.vel[1], cell, 1}, {g.vel[2], cell, 2}};
  auto velocity_at = [&](const std::array<double, 3>& x) {
    std::array<double, 3> v;
    for (int a = 0; a < 3; ++a) v[a] = faces[a].at(x[a] * inv_dx - cell[a]);
    return v;
  };
  std::array<double, 3> x{p.x[n], p.y[n], p.z[n]};
  const std::array<double, 3> v1 = velocity_at(x);
  const std::array<double, 3> v =
      velocity_at({x[0] + 0.5 * dt * v1[0], x[1] + 0.5 * dt * v1[1], x[2] + 0.5 * dt * v1[2]});
  for (int a = 0; a < 3; ++a) x[a] += dt * v[a];
  push_out.apply(x[0], x[1], x[2]);
  p.x[n] = x[0];
  p.y[n] = x[1];
  p.z[n] = x[2];
}

// Advection of a particle that took its rigid cluster's motion in G2P: along that motion
// (the midpoint rule on v + w x r), not through the grid. The second projection corrects
// a resting cluster's faces next to flowing and open cells after the fit, so advected
// through the grid its surface grains crept though their velocity was the cluster's (0 for a
// cluster at rest): a soaked bank 27 degrees steep (phi 30) under still water, whose water
// slips along it, lost 3.3 mm of its crest in 2 s (SubmergedBank in test_effective_stress).
void advect_with_cluster(const RigidMotion* motion, double dt, const SolidPushOut& push_out,
                         size_t n, Particles& p) {
  double x = p.x[n], y = p.y[n], z = p.z[n];
  double vx = p.vx[n], vy = p.vy[n], vz = p.vz[n];
  if (motion) {
    const std::array<double, 3> v1 = rigid_velocity_at(*motion, x, y, z);
    const std::array<double, 3> v = rigid_velocity_at(*motion, x + 0.5 * dt * v1[0],
                                                      y + 0.5 * dt * v1[1], z + 0.5 * dt * v1[2]);
    vx = v[0];
    vy = v[1];
    vz = v[2];
  }
  x += dt * vx;
  y += dt * vy;
  z += dt * vz;
  push_out.apply(x, y, z);
  p.x[n] = x;
  p.y[n] = y;
  p.z[n] = z;
}

// What G2P decides for a particle from its cell alone: whether it moves with its rigid
// cluster and, if so, the cluster's motion and what advects it. Sorted by cell, consecutive
// particles mostly share a cell, so the decision is kept for the next particle (its six
// neighbours' reads were a tenth of G2P and advection on the resting 1e8 dune).
class ClusterCarrierByCell {
 public:
  ClusterCarrierByCell(const MacGrid& g, const RigidMotions* motions)
      : g_(g), motion_(g.rigid_clusters, motions) {}

  // The carrier of a particle of `material` at pt that moves with its cluster, or nullptr
  // where it does not.
  const Carrier* at(const MaterialSpec& material, const GridPoint& pt) {
    if (!may_move_with_cluster(material)) return nullptr;
    const Index3 cell{pt.node[0], pt.node[1], pt.node[2]};
    if (cell != cell_) {
      cell_ = cell;
      moves_ = in_rigid_cell(g_, pt);
      if (moves_) carrier_ = cluster_carrier(g_, pt, motion_.at(cell));
    }
    return moves_ ? &carrier_ : nullptr;
  }

 private:
  const MacGrid& g_;
  ClusterMotionLookup motion_;
  Index3 cell_{std::numeric_limits<int>::min(), 0, 0};
  bool moves_ = false;
  Carrier carrier_;
};

// G2P of particles first to last - 1, each also writing what carries it through advection
// into carrier_of(n).
template <class CarrierOf>
void grid_to_each_particle(const MacGrid& g, const std::vector<MaterialSpec>& materials,
                           Particles& p, const RigidMotions* rigid_motions, size_t first,
                           size_t last, CarrierOf&& carrier_of) {
  const double inv_dx = 1.0 / g.dx;
  ClusterCarrierByCell by_cell(g, rigid_motions);
  for (size_t n = first; n < last; ++n) {
    const MaterialSpec& material = materials[p.material[n]];
    const GridPoint pt(p.x[n], p.y[n], p.z[n], inv_dx);
    Carrier& carrier = carrier_of(n);
    // P2G reads every particle's affine velocity where any material carries one, and the
    // sort leaves the rows where they were (AffineRows::Leave): G2P rewrites every row, a
    // FLIP particle's with zero.
    if (p.carries_affine && material.transfer == Transfer::Flip) p.affine[n] = {};
    if (const Carrier* cluster = by_cell.at(material, pt)) {
      if (cluster->motion)
        take_rigid_motion(*cluster->motion,
                          p.carries_affine && material.transfer != Transfer::Flip, n, p);
      else
        take_own_cell_velocity(g, pt, material, n, p);
      carrier = *cluster;
      continue;
    }
    if (material.transfer == Transfer::Flip) {
      blend_grid_velocity(g, pt, material.flip_ratio, n, p, carrier.grid_at_particle);
    } else {
      take_grid_velocity_affine(g, pt, n, p, carrier.grid_at_particle);
      if (material.transfer == Transfer::Rpic) keep_rotation_only(n, p);
    }
    carrier.kind = Carrier::GridAtParticle;
  }
}

// Advection of particle n over dt by what G2P found carries it.
void advect_by(const MacGrid& g, const AdvectionSubsteps& steps, double dt,
               const SolidPushOut& push_out, const Carrier& carrier, size_t n, Particles& p) {
  if (carrier.kind == Carrier::Cluster) {
    advect_with_cluster(carrier.motion, dt, push_out, n, p);
    return;
  }
  if (carrier.kind == Carrier::OwnCellFaces) {
    advect_in_own_cell(g, dt, push_out, n, p);
    return;
  }
  const bool at_particle = carrier.kind == Carrier::GridAtParticle;
  advect_particle(g, steps, push_out, n, at_particle ? &carrier.grid_at_particle : nullptr, p);
}

}  // namespace

void grid_to_particles(const MacGrid& g, const std::vector<MaterialSpec>& materials, Particles& p,
                       const RigidMotions* rigid_motions) {
  Carrier unused;
  grid_to_each_particle(g, materials, p, rigid_motions, 0, p.size(),
                        [&](size_t) -> Carrier& { return unused; });
}

void advect_after_grid_to_particles(const MacGrid& g, const std::vector<MaterialSpec>& materials,
                                    Particles& p, const RigidMotions* rigid_motions, double dt,
                                    const SolidPushOut& push_out) {
  const double inv_dx = 1.0 / g.dx;
  const AdvectionSubsteps steps(dt, g.dx);
  ClusterCarrierByCell by_cell(g, rigid_motions);
  const Carrier through_grid;
  for (size_t n = 0; n < p.size(); ++n) {
    const GridPoint pt(p.x[n], p.y[n], p.z[n], inv_dx);
    const Carrier* cluster = by_cell.at(materials[p.material[n]], pt);
    advect_by(g, steps, dt, push_out, cluster ? *cluster : through_grid, n, p);
  }
}

void grid_to_particles_and_advect(const MacGrid& g, const std::vector<MaterialSpec>& materials,
                                  Particles& p, const RigidMotions* rigid_motions, double dt,
                                  const SolidPushOut& push_out) {
  // A block of particles at a time, G2P and then advection, rather than both per particle:
  // one loop over G2P's and advection's arrays together (the affine velocity among
  // them) ran 10% slower on the dune than the two passes, while the block's interpolated
  // velocities stay in the first-level cache.
  constexpr size_t kBlock = 256;
  const AdvectionSubsteps steps(dt, g.dx);
  std::array<Carrier, kBlock> carriers;
  for (size_t first = 0; first < p.size(); first += kBlock) {
    const size_t last = std::min(p.size(), first + kBlock);
    grid_to_each_particle(g, materials, p, rigid_motions, first, last,
                          [&](size_t n) -> Carrier& { return carriers[n - first]; });
    for (size_t n = first; n < last; ++n)
      advect_by(g, steps, dt, push_out, carriers[n - first], n, p);
  }
}

}  // namespace dunesim

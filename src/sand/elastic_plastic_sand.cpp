#include "src/sand/elastic_plastic_sand.hpp"

#include <algorithm>
#include <cmath>

#include "src/pressure/pressure_solver.hpp"
#include "src/sand/staggered_stress.hpp"
#include "src/sand/sand_rheology.hpp"
#include "src/sand/stress_divergence.hpp"
#include "src/sand/wet_sand.hpp"

namespace dunesim {

namespace {

using namespace staggered;

void fill_stress_halo(Halo& halo, StressField& s) {
  halo.fill<float>({&s[0], &s[1], &s[2], &s[3], &s[4], &s[5]});
}

}  // namespace

double elastic_time_step_limit(double shear_modulus, double density, double dx) {
  return kElasticCourant * dx / std::sqrt(shear_modulus / density);
}

void gather_particle_stress(const Topology& topo, Halo& halo, const Particles& p,
                            const std::vector<MaterialSpec>& materials, MacGrid& g) {
  StressField& stress = g.stress;
  StressField& start = g.stress_at_step_start;
  const Box local = topo.local(Stagger::Cell);
  const Box old_region = neighbourhood(g.sand_region, 1, local);
  for (int m = 0; m < 6; ++m) {
    stress[m].fill(old_region, 0.0);
    start[m].fill(old_region, 0.0);
  }
  g.sand_region = nonzero_bounding_box(g.sand).intersect(local);
  // Cell means of the particles' stress, in `start` for now.
  const double inv_dx = 1.0 / g.dx;
  for (size_t n = 0; n < p.size(); ++n) {
    if (materials[p.material[n]].kind != MaterialKind::Sand) continue;
    const Index3 c{int(std::floor(p.x[n] * inv_dx)), int(std::floor(p.y[n] * inv_dx)),
                   int(std::floor(p.z[n] * inv_dx))};
    if (!sand_at(g, g.sand, c)) continue;
    for (int m = 0; m < 6; ++m) at(start[m], c) += p.stress[m][n];
  }
  for_each_index(topo.owned_cells(topo.rank()).intersect(g.sand_region), [&](int i, int j,
                                                                             int k) {
    const double count = g.sand_count(i, j, k);
    if (!sand_at(g, g.sand, {i, j, k}) || count <= 0) return;
    for (Array3<float>& s : start) s(i, j, k) = float(s(i, j, k) / count);
    const double mean = (start[0](i, j, k) + start[1](i, j, k) + start[2](i, j, k)) / 3;
    for (int a = 0; a < 3; ++a) start[a](i, j, k) -= mean;
  });
  fill_stress_halo(halo, start);
  // Diagonal at the cells as it is; shear on each active edge the mean of its four cells.
  // Every rank computes its ghost edges from halo-filled cells, so they agree.
  const Box edges = neighbourhood(g.sand_region, 1, local.grown(-1));
  for_each_index(edges, [&](int i, int j, int k) {
    const Index3 e{i, j, k};
    for (int a = 0; a < 3; ++a) stress[a](i, j, k) = start[a](i, j, k);
    for (int n = 0; n < 3; ++n) {
      double sum = 0;
      if (edge_active(g, g.sand, e, kPairs[n]))
        cells_around_edge(e, kPairs[n], [&](const Index3& c) { sum += at(start[3 + n], c); });
      stress[3 + n](i, j, k) = sum / 4;
    }
  });
  for (int m = 0; m < 6; ++m)
    for_each_index(edges, [&](int i, int j, int k) { start[m](i, j, k) = stress[m](i, j, k); });
}

void scatter_stress_to_particles(const MacGrid& g, const std::vector<MaterialSpec>& materials,
                                 Particles& p) {
  const double inv_dx = 1.0 / g.dx;
  for (size_t n = 0; n < p.size(); ++n) {
    if (materials[p.material[n]].kind != MaterialKind::Sand) continue;
    const Index3 c{int(std::floor(p.x[n] * inv_dx)), int(std::floor(p.y[n] * inv_dx)),
                   int(std::floor(p.z[n] * inv_dx))};
    if (!sand_at(g, g.sand, c)) continue;  // outside the sand the stress carries on unchanged
    for (int a = 0; a < 3; ++a)
      p.stress[a][n] += float(at(g.stress[a], c) - at(g.stress_at_step_start[a], c));
    for (int m = 0; m < 3; ++m) {
      double change = 0;
      edges_around_cell(c, kPairs[m], [&](const Index3& e) {
        change += at(g.stress[3 + m], e) - at(g.stress_at_step_start[3 + m], e);
      });
      p.stress[3 + m][n] += float(change / 4);
    }
  }
}

namespace {

struct StageContext {
  const Topology& topo;
  MacGrid& g;
  const Array3<uint8_t>& sand;
  const MaterialSpec& material;
  double sin_phi, cos_phi, modulus, dt;
  bool wet;
};

// The elastic trial: the deviatoric diagonal at the owned sand cells, the shear at the owned
// active edges.
void elastic_trial(const StageContext& s) {
  MacGrid& g = s.g;
  const double stiffness = 2 * s.modulus * s.dt;
  const Box owned = s.topo.owned_cells(s.topo.rank()).intersect(g.sand_region.grown(1));
  for_each_index(owned, [&](int i, int j, int k) {
    const Index3 c{i, j, k};
    if (sand_at(g, s.sand, c)) {
      double stretch[3], trace = 0;
      for (int a = 0; a < 3; ++a) trace += stretch[a] = cell_stretch(g.vel, g.dx, c, a);
      for (int a = 0; a < 3; ++a) g.stress[a](i, j, k) -= stiffness * (stretch[a] - trace / 3);
    }
    for (int n = 0; n < 3; ++n) {
      const ShearPair p = kPairs[n];
      if (!edge_active(g, s.sand, c, p)) continue;
      const double rate = edge_shear_rate(g.vel, g.dx, c, p);
      g.stress[3 + n](i, j, k) -= stiffness * rate;
    }
  });
}

// The yield stress of a sand cell at its saturation, never below 0: Drucker-Prager matched to
// Mohr-Coulomb in plane strain, sigma_bar = sin(phi) p + c cos(phi).
double yield_stress(const StageContext& s, int i, int j, int k) {
  const WetSandProperties w = s.wet ? wet_sand_properties(s.material, s.g.saturation(i, j, k))
                                    : WetSandProperties{s.material.cohesion};
  return std::max(0.0,
                  s.sin_phi * w.friction_scale * s.g.pressure(i, j, k) + w.cohesion * s.cos_phi);
}

// Returns each owned sand cell's stress to the yield surface, with sigma_bar from its
// diagonal and the mean shear of its edges; the scale it took is kept for the edges.
void return_cells_to_yield(const StageContext& s, SandPlasticityStats& stats) {
  MacGrid& g = s.g;
  const Box owned = s.topo.owned_cells(s.topo.rank()).intersect(g.sand_region);
  for_each_index(owned, [&](int i, int j, int k) {
    const Index3 c{i, j, k};
    g.yield_scale(i, j, k) = 1.0;
    if (!sand_at(g, s.sand, c)) return;
    double j2 = 0;  // J2 of the deviatoric stress
    for (int a = 0; a < 3; ++a) j2 += 0.5 * g.stress[a](i, j, k) * g.stress[a](i, j, k);
    for (int n = 0; n < 3; ++n) {
      double sum = 0;
      edges_around_cell(c, kPairs[n], [&](const Index3& e) { sum += at(g.stress[3 + n], e); });
      j2 += (sum / 4) * (sum / 4);
    }
    const double limit = yield_stress(s, i, j, k), equivalent = std::sqrt(j2);
    if (equivalent <= limit) return;
    const double scale = limit / equivalent;
    g.yield_scale(i, j, k) = scale;
    for (int a = 0; a < 3; ++a) g.stress[a](i, j, k) *= scale;
    g.yielding(i, j, k) = 1;
    ++stats.yielding_cells;
  });
}

// Each edge takes the smallest scale of its four cells; ghost edges too (from halo-filled
// cells), so that the forces on the owned faces see the edges their owners see.
void return_edges_to_yield(const StageContext& s) {
  MacGrid& g = s.g;
  const Box edges = neighbourhood(g.sand_region, 1, s.topo.local(Stagger::Cell).grown(-2));
  for_each_index(edges, [&](int i, int j, int k) {
    const Index3 e{i, j, k};
    for (int n = 0; n < 3; ++n) {
      double scale = 1.0;
      cells_around_edge(e, kPairs[n], [&](const Index3& c) {
        scale = std::min(scale, double(at(g.yield_scale, c)));
      });
      g.stress[3 + n](i, j, k) *= scale;
    }
  });
}

// u <- u - dt / rho div(s) on the owned faces near the sand, s on cells and edges as above:
// the negative transpose of the strain rate, so the elastic update conserves energy.
void apply_stress_force(const StageContext& s) {
  MacGrid& g = s.g;
  const Topology& topo = s.topo;
  const Box near = neighbourhood(g.sand_region, 1, topo.local(Stagger::Cell));
  for (int a = 0; a < 3; ++a) {
    const Box faces = topo.owned(face_stagger(a))
                          .intersect(topo.global(face_stagger(a)))
                          .intersect(faces_of_cells(near, a));
    for_each_index(faces, [&](int i, int j, int k) {
      const Index3 right{i, j, k}, left = shifted(right, a, -1);
      const uint8_t type_l = g.cell_type(left[0], left[1], left[2]);
      const uint8_t type_r = g.cell_type(i, j, k);
      if (type_l == kSolid || type_r == kSolid) return;
      auto normal = [&](const Index3& c) {
        return sand_at(g, s.sand, c) ? at(g.stress[a], c) : 0.0;
      };
      const double div = face_divergence(g.stress, normal, g.dx, a, right);
      if (div == 0.0) return;
      const double rho =
          face_density(type_l, g.density(left[0], left[1], left[2]), type_r, g.density(i, j, k));
      g.vel[a](i, j, k) -= s.dt / rho * div;
    });
  }
}

}  // namespace

SandPlasticityStats apply_elastic_plastic_sand(const Topology& topo, Halo& halo, MacGrid& g,
                                               const Array3<uint8_t>& sand_cells,
                                               const MaterialSpec& sand, double dt) {
  const Box region = neighbourhood(g.sand_region, 1, topo.local(Stagger::Cell));
  g.yielding.fill(region, uint8_t(0));
  g.rigid.fill(region, uint8_t(0));
  SandPlasticityStats stats;
  for_each_index(topo.owned_cells(topo.rank()).intersect(g.sand_region),
                 [&](int i, int j, int k) {
                   if (sand_at(g, sand_cells, {i, j, k})) ++stats.sand_cells;
                 });
  const bool wet = sand.wet.holds_water() && g.has_pore_water();
  const double sin_phi =
      std::sin(sand.friction_angle_deg * M_PI / 180.0);  // as the friction laws
  const StageContext s{topo,
                       g,
                       sand_cells,
                       sand,
                       sin_phi,
                       std::sqrt(1 - sin_phi * sin_phi),
                       sand.rheology.shear_modulus,
                       dt,
                       wet};
  elastic_trial(s);
  fill_stress_halo(halo, g.stress);
  return_cells_to_yield(s, stats);
  halo.fill<float>({&g.stress[0], &g.stress[1], &g.stress[2], &g.yield_scale});
  return_edges_to_yield(s);
  apply_stress_force(s);
  halo.fill<double>({&g.vel[0], &g.vel[1], &g.vel[2]});
  halo.fill<uint8_t>({&g.yielding});
  stats.rigid_cells = stats.sand_cells - stats.yielding_cells;
  return stats;
}

void apply_mud_viscosity(const Topology& topo, Halo& halo, MacGrid& g,
                         const Array3<uint8_t>& sand_cells, const MaterialSpec& sand, double dt) {
  if (!sand.wet.holds_water() || !g.has_pore_water() || sand.wet.mud_viscosity <= 0) return;
  StressField& stress = g.stress;
  for (Array3<float>& component : stress)
    component.fill(neighbourhood(g.sand_region, 1, topo.local(Stagger::Cell)), 0.0);
  for_each_index(topo.owned_cells(topo.rank()).intersect(g.sand_region), [&](int i, int j,
                                                                             int k) {
    if (!sand_at(g, sand_cells, {i, j, k})) return;
    const double viscosity = wet_sand_properties(sand, g.saturation(i, j, k)).viscosity;
    if (viscosity <= 0) return;
    SymTensor sigma;
    add_viscous_stress(sigma, strain_rate(g, i, j, k), viscosity, g.density(i, j, k), g.dx, dt);
    for (int m = 0; m < 6; ++m) stress[m](i, j, k) = sigma.c[m];
  });
  fill_stress_halo(halo, stress);
  apply_stress_divergence(topo, g, stress, sand_cells, g.sand_region, dt);
  halo.fill<double>({&g.vel[0], &g.vel[1], &g.vel[2]});
}

}  // namespace dunesim

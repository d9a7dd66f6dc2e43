#include "src/grid/boundaries.hpp"

#include <algorithm>
#include <cmath>

namespace dunesim {

namespace {

// What cell (i,j,k) is made of: the box wall (outside the domain), a collider (its index;
// the last one listed wins), or nothing solid.
constexpr int kNotSolid = -1, kBoxWall = -2;
int solid_at(const CaseConfig& config, int i, int j, int k) {
  if (i < 0 || j < 0 || k < 0 || i >= config.cells[0] || j >= config.cells[1] ||
      k >= config.cells[2])
    return kBoxWall;
  const double dx = config.cell_size;
  const Vec3 centre{(i + 0.5) * dx, (j + 0.5) * dx, (k + 0.5) * dx};
  int solid = kNotSolid;
  for (size_t c = 0; c < config.colliders.size(); ++c)
    if (config.colliders[c].shape.signed_distance(centre) < 0.0) solid = int(c);
  return solid;
}

// A cell beyond a frictionless box wall (on any axis) is frictionless.
bool beyond_frictionless_wall(const CaseConfig& config, const Index3& cell) {
  for (int a = 0; a < 3; ++a) {
    if (cell[a] < 0 && config.frictionless_wall[2 * a]) return true;
    if (cell[a] >= config.cells[a] && config.frictionless_wall[2 * a + 1]) return true;
  }
  return false;
}

}  // namespace

void mark_static_solids(const CaseConfig& config, Array3<uint8_t>& solid) {
  for_each_index(solid.box(), [&](int i, int j, int k) {
    solid(i, j, k) = solid_at(config, i, j, k) != kNotSolid ? 1 : 0;
  });
}

void mark_wall_friction(const CaseConfig& config, Array3<float>& wall_mu) {
  for_each_index(wall_mu.box(), [&](int i, int j, int k) {
    const int solid = solid_at(config, i, j, k);
    double mu = 0.0;
    if (solid == kBoxWall)
      mu = beyond_frictionless_wall(config, {i, j, k}) ? 0.0 : config.wall_friction;
    else if (solid != kNotSolid)
      mu = config.colliders[solid].friction;
    wall_mu(i, j, k) = mu;
  });
}

SolidBoundaryFaces find_solid_boundary_faces(const Array3<uint8_t>& solid, const MacGrid& g) {
  const Box& cells = solid.box();
  auto is_solid = [&](int i, int j, int k) { return !cells.contains(i, j, k) || solid(i, j, k); };
  SolidBoundaryFaces faces;
  for (int a = 0; a < 3; ++a) {
    const Array3<double>& v = g.vel[a];
    for_each_index(v.box(), [&](int i, int j, int k) {
      Index3 lo = lower_cell(a, i, j, k);
      if (is_solid(lo[0], lo[1], lo[2]) != is_solid(i, j, k))
        faces[a].push_back(v.offset(i, j, k));
    });
  }
  return faces;
}

void enforce_solid_velocity(const SolidBoundaryFaces& faces, MacGrid& g) {
  for (int a = 0; a < 3; ++a) {
    double* v = g.vel[a].data();
    for (int64_t o : faces[a]) v[o] = 0.0;
  }
}

SolidBoundaryFaces find_solid_boundary_faces(const MacGrid& g) {
  Array3<uint8_t> solid(g.cell_type.box(), g.cell_type.stagger(), 0);
  for (size_t n = 0; n < solid.size(); ++n) solid.data()[n] = g.cell_type.data()[n] == kSolid;
  return find_solid_boundary_faces(solid, g);
}

void enforce_solid_velocity(MacGrid& g) {
  enforce_solid_velocity(find_solid_boundary_faces(g), g);
}

SolidPushOut::SolidPushOut(const CaseConfig& config, double dx)
    : domain_(config.domain_size), margin_(1e-3 * dx) {
  for (const ColliderSpec& c : config.colliders) colliders_.push_back(c.shape);
}

void SolidPushOut::apply(double& x, double& y, double& z) const {
  for (const ShapeSpec& s : colliders_) {
    Vec3 p{x, y, z};
    double d = s.signed_distance(p);
    if (d >= margin_) continue;
    // Outward normal from the distance field's central-difference gradient.
    const double h = 1e-6 * (1.0 + std::max({domain_[0], domain_[1], domain_[2]}));
    Vec3 n;
    double len2 = 0;
    for (int a = 0; a < 3; ++a) {
      Vec3 q1 = p, q0 = p;
      q1[a] += h;
      q0[a] -= h;
      n[a] = s.signed_distance(q1) - s.signed_distance(q0);
      len2 += n[a] * n[a];
    }
    if (len2 <= 0) continue;
    double inv = 1.0 / std::sqrt(len2), push = margin_ - d;
    x += n[0] * inv * push;
    y += n[1] * inv * push;
    z += n[2] * inv * push;
  }
  x = std::clamp(x, margin_, domain_[0] - margin_);
  y = std::clamp(y, margin_, domain_[1] - margin_);
  z = std::clamp(z, margin_, domain_[2] - margin_);
}

}  // namespace dunesim

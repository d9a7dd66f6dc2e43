#include "src/sand/stress_divergence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "src/pressure/pressure_solver.hpp"

namespace dunesim {

// Face of component a between cells L = f - e_a and R = f:
//   (div sigma)_a = (sigma_aa(R) - sigma_aa(L)) / dx
//                 + sum_{b != a} (sigma_ab at the edge above f along b - at the edge below) / dx,
// where an edge value is the mean of the four cells around that edge (L, R and their
// neighbours along b). That is the central difference over 2 dx of the L/R mean of sigma_ab,
// exact for linear stress fields. Cells without sand (air, water, solid) carry no stress.
// An edge whose two cells beyond L and R are both air or solid lies on the sand's boundary
// and carries no flux: a free surface takes no traction, a symmetry plane no shear, and a
// wall's shear is the Coulomb wall friction's alone (wall_friction.hpp). The mean of four
// there would be half the row's stress: the edges of a layer's top and bottom rows did not
// cancel, and a flowing layer lost momentum at (sigma_xz(bottom row) - sigma_xz(top row)) / 2
// per unit area on top of its wall friction, even on a frictionless floor. Inside the sand
// the row's own stress cancels, so the update there is the central difference above.
//
// A rigid cell next to a yielding one along b does not enter sigma_ab with its own
// sigma_rigid. sigma_rigid is only the stress that would stop the rigid cell's own (mostly
// induced) strain within one step, at most sin(phi) p / sqrt(3) and usually far less, while
// the interface between a flowing cell and the bed it shears is itself at yield: it carries
// the frictional stress of the flow at the interface's pressure. So the rigid cell stands in
// with the yielding cell's sigma_ab scaled by p(rigid) / p(yielding), which is the frictional
// stress with the flow's direction of shear at the rigid cell's pressure; with a pressure
// linear in depth the edge value is then the frictional stress at the interface. With
// sigma_rigid the lowest row of a flowing layer felt (sigma_above - sigma_rigid) / (2 dx),
// which drags it forward when the row above carries more stress than the bed: a flow on a
// rigid heap lost most of its basal friction, and heaps stood at an angle set by the
// PIC transfer's damping rather than by phi (at 0.5 cm cells 31 degrees for phi = 30 and 40
// alike). The pressure ratio is exact for frictional stress, which goes as p; mud's viscous
// stress does not, and a yielding row of mud at next to no pressure beside a rigid cell
// under pressure multiplied it without bound: the friction substeps then grew a face of
// `cases/faucet_on_sand.toml` 3.55 times a substep, to 1800 m/s. For a row of mud (wet sand
// above its ideal saturation, which has a viscosity) the ratio is therefore kept at most 2,
// the largest a hydrostatic pressure gives between neighbouring cells (the top row, whose
// centre the first-order surface puts at rho g dx, and the row under it).
//
// Written as fluxes, the face's update is (flux across its upper edge - across its lower
// edge) / dx, the edge's flux the mean of the four cells' values as the face sees them. Faces
// of rigid cells are not updated by their own stress (the rigid fit sets them), but each one
// next to a yielding face takes the opposite of the flux that face takes across their shared
// edge (and, along a, across the cell between them), so the flow's friction on a rigid
// cluster reaches the cluster. Without it the friction a flow felt from its bed went nowhere
// (momentum was lost), and a plug riding a sheared layer, or a raft of surface cells that
// passed as rigid, slid over the flow under it without friction.
namespace {

// The arrays apply_stress_divergence reads, addressed with one set of strides: the stress and
// yielding arrays share one box (the grid's, or its part in the sand window), the grid's cell
// arrays (type, rigid flags only where they share the stress' box, pressure) have their own.
struct DivergenceStencil {
  DivergenceStencil(const MacGrid& g, const StressField& stress_field,
                    const Array3<uint8_t>& yielding_cells, const MudCells& mud_cells)
      : stress(stress_field),
        type(g.cell_type),
        yielding(yielding_cells),
        types(type.data()),
        yields(yielding.data()),
        rigids(g.rigid.box() == yielding.box() ? g.rigid.data() : nullptr),
        pressure(g.pressure.data()),
        mud(mud_cells) {}

  const StressField& stress;
  const Array3<uint8_t>& type;
  const Array3<uint8_t>& yielding;
  const uint8_t* types;
  const uint8_t* yields;
  const uint8_t* rigids;  // null where no cell was classified: sigma_ab is used as it is
  const double* pressure;
  MudCells mud;  // rows whose stress may be viscous

  bool yielding_face(int64_t Ls, int64_t Rs) const { return yields[Ls] || yields[Rs]; }

  // Whether the cell `offset` cells along a from `cell` lies in the arrays and yields.
  bool yields_along(int a, Index3 cell, int offset) const {
    cell[a] += offset;
    return yielding.box().contains(cell[0], cell[1], cell[2]) &&
           yielding(cell[0], cell[1], cell[2]);
  }

  // Whether the neighbour along b (by `side`) of the yielding `row` is rigid, so that it
  // stands in with the row's stress in the row's sigma_ab.
  bool stands_in(int b, int64_t row_s, int side) const {
    return rigids && rigids[row_s + side * yielding.stride(b)] && yields[row_s];
  }

  // sigma_ab of the neighbour along b (by `side`) of `row`, as the faces of `row` see it: a
  // rigid neighbour of a yielding row stands in with the row's stress at its own pressure.
  double edge(const float* sigma_ab, int b, int64_t row, int64_t row_s, int side) const {
    const int64_t cell = row + side * type.stride(b), cell_s = row_s + side * yielding.stride(b);
    if (!stands_in(b, row_s, side)) return double(sigma_ab[cell_s]);
    return stood_in(sigma_ab, row, row_s, cell, mud_row(row));
  }

  // Whether a rigid cell standing in for `row` is bounded as for a row of mud: wet sand not
  // at or below its ideal saturation.
  bool mud_row(int64_t row) const {
    return mud.saturation && !(mud.saturation[row] <= mud.ideal_saturation);
  }

  // The rigid `cell`'s stand-in for `row`: the row's stress at the cell's pressure.
  double stood_in(const float* sigma_ab, int64_t row, int64_t row_s, int64_t cell,
                  bool bounded_as_mud) const {
    const double p_row = pressure[row];
    if (!(p_row > 0)) return 0.0;
    const double value = sigma_ab[row_s] * std::max(pressure[cell], 0.0) / p_row;
    if (!bounded_as_mud) return value;
    const double most = kMudStandInRatio * std::abs(double(sigma_ab[row_s]));
    return std::clamp(value, -most, most);
  }

  // Whether the edge between cells L, R and the two cells `step` beyond them lies on the
  // boundary of the fluid: both of those are air or solid.
  bool on_boundary(int64_t L, int64_t R, int64_t step) const {
    return types[L + step] != kFluid && types[R + step] != kFluid;
  }

  // Four times the flux of sigma_ab across the edge beside the face between L and R, on
  // `side` along b: the sum of the edge's four cells, or 0 on the sand's boundary.
  double edge_flux(const float* sigma_ab, int b, int64_t L, int64_t Ls, int64_t R, int64_t Rs,
                   int side) const {
    if (on_boundary(L, R, side * type.stride(b))) return 0.0;
    return double(sigma_ab[Ls]) + double(sigma_ab[Rs]) + edge(sigma_ab, b, L, Ls, side) +
           edge(sigma_ab, b, R, Rs, side);
  }

  // The tests of the yielding face between L and R (Ls and Rs in the sand's arrays) that
  // decide its edge fluxes, as EdgedYieldingFace's bits: which edges lie on the boundary,
  // which rows' neighbours stand in. Where none holds, every edge flux is the plain sum of
  // its four cells' stress, as for most faces inside a flow.
  struct EdgeTests {
    uint8_t on_boundary = 0, stands_in = 0;
    bool plain() const { return (on_boundary | stands_in) == 0; }
  };
  EdgeTests edge_tests(int a, int64_t L, int64_t Ls) const {
    const int64_t R = L + type.stride(a), Rs = Ls + yielding.stride(a);
    EdgeTests tests;
    int e = 0;
    for (int b = 0; b < 3; ++b) {
      if (b == a) continue;
      for (int side : {1, -1}) {
        if (on_boundary(L, R, side * type.stride(b))) tests.on_boundary |= uint8_t(1 << e);
        if (stands_in(b, Ls, side)) tests.stands_in |= uint8_t(1 << (2 * e));
        if (stands_in(b, Rs, side)) tests.stands_in |= uint8_t(1 << (2 * e + 1));
        ++e;
      }
    }
    return tests;
  }

  // Calls take(term) for each flux that a yielding cell or face passes to the face between L
  // and R (neither yielding, one of them rigid), in a fixed order; term() is its share of the
  // face's force: the opposite of each flux that a yielding face next to it takes across
  // their shared edge (or, along a, across the cell between them); see above. `face` is the
  // face's index, which is R's; L is one cell below it along a.
  template <class Take>
  void for_each_reaction_flux(int a, Index3 face, int64_t L, int64_t Ls, int64_t R, int64_t Rs,
                              double dx, Take&& take) const {
    const float* sigma_aa = stress[a].data();
    const int64_t step_a = type.stride(a);
    if (yields_along(a, face, 1) && types[R + step_a] != kSolid)
      take([&] { return sigma_aa[Rs] / dx; });
    if (yields_along(a, face, -2) && types[L - step_a] != kSolid)
      take([&] { return -(sigma_aa[Ls] / dx); });
    for (int b = 0; b < 3; ++b) {
      if (b == a) continue;
      const float* sigma_ab = stress[SymTensor::index(a, b)].data();
      for (int side = -1; side <= 1; side += 2) {
        const int64_t Lb = L + side * type.stride(b), Rb = R + side * type.stride(b);
        const int64_t Lbs = Ls + side * yielding.stride(b), Rbs = Rs + side * yielding.stride(b);
        if (!yielding_face(Lbs, Rbs) || types[Lb] == kSolid || types[Rb] == kSolid) continue;
        take([&] { return side * edge_flux(sigma_ab, b, Lb, Lbs, Rb, Rbs, -side) / (4 * dx); });
      }
    }
  }

  // The force on a face between two cells that do not yield, at least one of them rigid.
  double rigid_face_reaction(int a, Index3 face, int64_t L, int64_t Ls, int64_t R, int64_t Rs,
                             double dx) const {
    double div = 0;
    for_each_reaction_flux(a, face, L, Ls, R, Rs, dx, [&](const auto& term) { div += term(); });
    return div;
  }

  // Whether any flux reaches that face: elsewhere, as inside a cluster at rest, its force is
  // exactly 0 in every substep.
  bool borders_yielding(int a, Index3 face, int64_t L, int64_t Ls, int64_t R, int64_t Rs) const {
    bool any = false;
    for_each_reaction_flux(a, face, L, Ls, R, Rs, 1.0, [&](const auto&) { any = true; });
    return any;
  }
};

// How a face of the sand's cells takes the divergence. The classification, the cell types
// and the rigid flags hold for all of a step's friction substeps, so this is decided once.
enum FaceKind : uint8_t {
  kUntouched,      // a solid cell's face, or one between cells that neither yield nor are rigid
  kPlainYielding,  // a yielding face whose edges are all plain sums (EdgeTests::plain)
  kYielding,       // any other yielding face
  kRigidReaction,  // a rigid face beside yielding ones, which takes their reaction
};

// A rigid face with no yielding neighbour is untouched: its reaction would be 0 in every
// substep, and most rigid faces are such.
FaceKind face_kind(const DivergenceStencil& stencil, int a, const Index3& face, int64_t L,
                   int64_t Ls, int64_t R, int64_t Rs) {
  if (stencil.types[L] == kSolid || stencil.types[R] == kSolid) return kUntouched;
  if (stencil.yielding_face(Ls, Rs))
    return stencil.edge_tests(a, L, Ls).plain() ? kPlainYielding : kYielding;
  if (stencil.rigids && (stencil.rigids[Ls] || stencil.rigids[Rs]) &&
      stencil.borders_yielding(a, face, L, Ls, R, Rs))
    return kRigidReaction;
  return kUntouched;
}

// Over the n faces of component a along x from the one whose upper cell is at offsets R and
// Rs, face_kind's tests that decide most of them, as 0 or 1 a face: `plain` where it is
// kPlainYielding, `undecided` where it may be any kind but kUntouched (a yielding or rigid
// cell beside it, no solid). A row at a time in loops over bytes that the compiler
// vectorises: inside a flow nearly every face is plain, around it many are untouched, and
// testing them one by one cost more than the rest of the lists' making.
void mark_row_of_faces(const DivergenceStencil& st, int a, int64_t R, int64_t Rs, int n,
                       uint8_t* __restrict plain, uint8_t* __restrict undecided) {
  const uint8_t* __restrict t_hi = st.types + R;
  const uint8_t* __restrict t_lo = t_hi - st.type.stride(a);
  const uint8_t* __restrict y_hi = st.yields + Rs;
  const uint8_t* __restrict y_lo = y_hi - st.yielding.stride(a);
  const uint8_t* __restrict r_hi = st.rigids ? st.rigids + Rs : nullptr;
  const uint8_t* __restrict r_lo = st.rigids ? r_hi - st.yielding.stride(a) : nullptr;
  for (int m = 0; m < n; ++m)
    plain[m] = uint8_t((t_lo[m] != kSolid) & (t_hi[m] != kSolid) & ((y_lo[m] | y_hi[m]) != 0));
  for (int m = 0; m < n; ++m)
    undecided[m] = r_hi ? uint8_t(plain[m] | ((t_lo[m] != kSolid) & (t_hi[m] != kSolid) &
                                              ((r_lo[m] | r_hi[m]) != 0)))
                        : plain[m];
  for (int b = 0; b < 3; ++b) {
    if (b == a) continue;
    for (int side : {1, -1}) {
      // No edge on the sand's boundary: one of the two cells beyond L and R is fluid.
      const int64_t step = side * st.type.stride(b);
      for (int m = 0; m < n; ++m)
        plain[m] &= uint8_t((t_lo[m + step] == kFluid) | (t_hi[m + step] == kFluid));
      if (!r_hi) continue;
      // No rigid neighbour standing in for a yielding L or R.
      const int64_t step_s = side * st.yielding.stride(b);
      for (int m = 0; m < n; ++m)
        plain[m] &= uint8_t(((r_lo[m + step_s] & y_lo[m]) | (r_hi[m + step_s] & y_hi[m])) == 0);
    }
  }
}

// Every face of component a in `faces` that may take the divergence, in for_each_index order:
// plain_run(i, j, k, count) for each run of consecutive plain yielding faces along x,
// face(i, j, k) for each other face with a yielding or rigid cell beside it.
template <class PlainRun, class Face>
void for_each_face_by_rows(const DivergenceStencil& st, const MacGrid& g, int a, const Box& faces,
                           PlainRun&& plain_run, Face&& face) {
  const size_t row_length = size_t(std::max(faces.hi[0] - faces.lo[0], 0));
  std::vector<uint8_t> plain(row_length), undecided(row_length);
  for_each_row(faces, [&](int i, int j, int k, int length) {
    mark_row_of_faces(st, a, g.cell_type.offset(i, j, k), st.yielding.offset(i, j, k), length,
                      plain.data(), undecided.data());
    for (int m = 0; m < length;) {
      int end = m;
      while (end < length && plain[end]) ++end;
      if (end > m) {
        plain_run(i + m, j, k, end - m);
        m = end;
        continue;
      }
      if (undecided[m]) face(i + m, j, k);
      ++m;
    }
  });
}

// The edged face (i, j, k) of component a, whose lower cell is at offsets L and Ls.
EdgedYieldingFace edged_face(const DivergenceStencil& st, const MacGrid& g, int a,
                             const Index3& face, int64_t L, int64_t Ls) {
  const int64_t R = L + st.type.stride(a);
  const float* density = g.density.data();
  EdgedYieldingFace f{face, g.vel[a].offset(face[0], face[1], face[2]), L, Ls,
                      face_density(st.types[L], density[L], st.types[R], density[R])};
  const DivergenceStencil::EdgeTests tests = st.edge_tests(a, L, Ls);
  f.on_boundary = tests.on_boundary;
  f.stands_in = tests.stands_in;
  f.mud = uint8_t((st.mud_row(L) ? 1 : 0) | (st.mud_row(R) ? 2 : 0));
  return f;
}

// The edge value of `row` (bit `which` of the face's stand-ins) across edge b, side `side`.
inline double edged_value(const DivergenceStencil& st, const EdgedYieldingFace& f,
                          const float* sigma_ab, int b, int side, int which, int64_t row,
                          int64_t row_s, int e) {
  if (!(f.stands_in >> (2 * e + which) & 1))
    return double(sigma_ab[row_s + side * st.yielding.stride(b)]);
  return st.stood_in(sigma_ab, row, row_s, row + side * st.type.stride(b), f.mud >> which & 1);
}

// (div sigma)_a on an edged face: (sigma_aa(R) - sigma_aa(L)) / dx plus, for each b != a,
// the difference of edge_flux's values across the edges above and below it over 4 dx, the
// tests edge_flux makes read from the face's bits.
double edged_face_divergence(const DivergenceStencil& st, int a, const EdgedYieldingFace& f,
                             double dx) {
  const int64_t L = f.lower, Ls = f.lower_s;
  const int64_t R = L + st.type.stride(a), Rs = Ls + st.yielding.stride(a);
  double div = (st.stress[a].data()[Rs] - st.stress[a].data()[Ls]) / dx;
  int e = 0;
  for (int b = 0; b < 3; ++b) {
    if (b == a) continue;
    const float* sigma_ab = st.stress[SymTensor::index(a, b)].data();
    double flux[2];  // across the edge above along b, then below
    for (int side : {1, -1}) {
      flux[e & 1] = f.on_boundary >> e & 1
                        ? 0.0
                        : double(sigma_ab[Ls]) + double(sigma_ab[Rs]) +
                              edged_value(st, f, sigma_ab, b, side, 0, L, Ls, e) +
                              edged_value(st, f, sigma_ab, b, side, 1, R, Rs, e);
      ++e;
    }
    div += (flux[0] - flux[1]) / (4 * dx);
  }
  return div;
}

// u_a -= dt / rho * (div sigma)_a on a row of n consecutive plain yielding faces along x:
// edged_face_divergence where EdgeTests::plain holds and apply_below's update, with the same
// sums in the same order (so the same result to the last bit) and none of the tests, in one
// loop the compiler vectorises. The `_lo` and `_hi` arrays start at the row's first lower
// and upper cell in the grid's cell arrays; `s_aa`, `s_1` and `s_2` at its first lower
// cell's sigma_aa and its two sigma_ab (b < b' != a) in the sand's arrays, where the
// neighbours along b and b' are `step_1` and `step_2` away and the upper cells `up_a`.
void apply_plain_row(int n, double* __restrict v, const uint8_t* __restrict type_lo,
                     const uint8_t* __restrict type_hi, const float* __restrict density_lo,
                     const float* __restrict density_hi, const float* __restrict s_aa,
                     const float* __restrict s_1, const float* __restrict s_2, int64_t up_a,
                     int64_t step_1, int64_t step_2, double dt, double dx) {
  auto edge_term = [&](const float* s, int64_t step) {
    const double above =
        double(s[0]) + double(s[up_a]) + double(s[step]) + double(s[up_a + step]);
    const double below =
        double(s[0]) + double(s[up_a]) + double(s[-step]) + double(s[up_a - step]);
    return (above - below) / (4 * dx);
  };
  for (int m = 0; m < n; ++m) {
    double div = (s_aa[m + up_a] - s_aa[m]) / dx;
    div += edge_term(s_1 + m, step_1);
    div += edge_term(s_2 + m, step_2);
    const double rho = face_density(type_lo[m], density_lo[m], type_hi[m], density_hi[m]);
    v[m] -= dt / rho * div;
  }
}

// Where cells yield sparsely (sand mostly at rest, whose surface cells yield here and there),
// their list, in for_each_index order; none where more than one cell in kDenseYielding of
// `volume` yields: then the whole box is scanned.
constexpr int64_t kDenseYielding = 64;
std::optional<std::vector<Index3>> scattered_yielding_cells(const Array3<uint8_t>& yielding,
                                                            const Box& cells, int64_t volume) {
  std::vector<Index3> found;
  const size_t most = size_t(volume / kDenseYielding);
  for (int k = cells.lo[2]; k < cells.hi[2]; ++k)
    for (int j = cells.lo[1]; j < cells.hi[1]; ++j) {
      const uint8_t* row = &yielding(cells.lo[0], j, k);
      for (int i = cells.lo[0]; i < cells.hi[0]; ++i) {
        if (!row[i - cells.lo[0]]) continue;
        if (found.size() == most) return std::nullopt;
        found.push_back({i, j, k});
      }
    }
  return found;
}

// The faces of component a that a yielding cell y can make take the divergence (face_kind):
// y's own two (y, y + e_a), those whose reaction flux it passes along a (y - e_a, y + 2 e_a)
// and along each b != a (y -+ e_b, y + e_a -+ e_b).
std::vector<Index3> faces_near_a_yielding_cell(int a) {
  std::vector<Index3> near;
  auto add = [&](int along_a, int b, int along_b) {
    Index3 f{0, 0, 0};
    f[a] += along_a;
    if (b >= 0) f[b] += along_b;
    near.push_back(f);
  };
  for (int along_a : {-1, 0, 1, 2}) add(along_a, -1, 0);
  for (int b = 0; b < 3; ++b)
    if (b != a)
      for (int along_a : {0, 1})
        for (int side : {-1, 1}) add(along_a, b, side);
  return near;
}

// visit(i, j, k) for the faces of `faces` that may take the divergence, in for_each_index
// order: every face of the box, or where the yielding cells are `scattered`, only those near
// one of them (the others are kUntouched: face_kind would find none of its cells yielding).
template <class Visit>
void for_each_face_near_yielding(const std::optional<std::vector<Index3>>& scattered, int a,
                                 const Box& faces, Visit&& visit) {
  if (!scattered) {
    for_each_index(faces, visit);
    return;
  }
  const std::vector<Index3> near = faces_near_a_yielding_cell(a);
  std::vector<Index3> candidates;
  candidates.reserve(scattered->size() * near.size());
  for (const Index3& y : *scattered)
    for (const Index3& d : near) {
      const Index3 f{y[0] + d[0], y[1] + d[1], y[2] + d[2]};
      if (faces.contains(f[0], f[1], f[2])) candidates.push_back(f);
    }
  auto in_index_order = [](const Index3& p, const Index3& q) {
    return std::tie(p[2], p[1], p[0]) < std::tie(q[2], q[1], q[0]);
  };
  std::sort(candidates.begin(), candidates.end(), in_index_order);
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  for (const Index3& f : candidates) visit(f[0], f[1], f[2]);
}

}  // namespace

StressDivergence::StressDivergence(const Topology& topo, const MacGrid& g,
                                   const StressField& stress, const Array3<uint8_t>& yielding,
                                   const Box& yielding_box, const MudCells& mud)
    : stress_(stress), yielding_(yielding), mud_(mud) {
  bool same_boxes = true;
  for (const Array3<float>& component : stress)
    same_boxes = same_boxes && component.box() == yielding.box();
  if (!same_boxes)
    throw std::invalid_argument("apply_stress_divergence: stress and yielding must share a box");
  const DivergenceStencil stencil(g, stress, yielding, mud_);
  // Every face this takes has a cell within one cell of a yielding one (face_kind), so only
  // the faces of those cells are visited: in sand mostly at rest, a small part of its box.
  const Box yielding_box_of_cells = nonzero_bounding_box(yielding);
  if (yielding_box_of_cells.empty()) return;
  const Box near_yielding = yielding_box.intersect(yielding_box_of_cells.grown(1));
  const std::optional<std::vector<Index3>> scattered =
      scattered_yielding_cells(yielding, yielding_box_of_cells, near_yielding.volume());
  for (int a = 0; a < 3; ++a) {
    // The faces of the sand's cells: the yielding faces and the rigid faces beside them.
    const Box faces = topo.owned(face_stagger(a))
                          .intersect(topo.global(face_stagger(a)))
                          .intersect(faces_of_cells(near_yielding, a));
    auto add_face = [&](int i, int j, int k) {
      // R and L in the grid's cell arrays, Rs and Ls in the sand's.
      const int64_t R = g.cell_type.offset(i, j, k), L = R - g.cell_type.stride(a);
      const int64_t Rs = yielding.offset(i, j, k), Ls = Rs - yielding.stride(a);
      const FaceKind kind = face_kind(stencil, a, {i, j, k}, L, Ls, R, Rs);
      if (kind == kPlainYielding)
        add_to_rows(plain_rows_[a], {i, j, k});
      else if (kind == kYielding)
        edged_faces_[a].push_back(edged_face(stencil, g, a, {i, j, k}, L, Ls));
      else if (kind == kRigidReaction)
        rigid_faces_[a].push_back({i, j, k});
    };
    // Where cells yield densely (a flow), the box's faces a row at a time.
    if (scattered)
      for_each_face_near_yielding(scattered, a, faces, add_face);
    else
      for_each_face_by_rows(
          stencil, g, a, faces,
          [&](int i, int j, int k, int count) {
            add_to_rows(plain_rows_[a], {i, j, k}, count);
          },
          add_face);
  }
}

StressDivergence::RigidReaction StressDivergence::no_rigid_reaction() const {
  RigidReaction reaction;
  for (int a = 0; a < 3; ++a) reaction.of_face[a].assign(rigid_faces_[a].size(), 0.0);
  return reaction;
}

void StressDivergence::add_rigid_reaction(const RigidReaction& reaction, MacGrid& g) const {
  for (int a = 0; a < 3; ++a) {
    const std::vector<Index3>& faces = rigid_faces_[a];
    for (size_t n = 0; n < faces.size(); ++n)
      g.vel[a](faces[n][0], faces[n][1], faces[n][2]) += reaction.of_face[a][n];
  }
}

void StressDivergence::apply(MacGrid& g, double dt, RigidReaction* rigid_reaction) const {
  Progress from_the_start;
  apply_below(g, dt, rigid_reaction, std::numeric_limits<int>::max(), from_the_start);
}

void StressDivergence::apply_below(MacGrid& g, double dt, RigidReaction* rigid_reaction,
                                   int k_end, Progress& progress) const {
  const DivergenceStencil stencil(g, stress_, yielding_, mud_);
  const uint8_t* types = stencil.types;
  const float* density = g.density.data();
  for (int a = 0; a < 3; ++a) {
    Array3<double>& v = g.vel[a];
    const std::vector<FaceRow>& rows = plain_rows_[a];
    for (size_t& next = progress.next[a][0]; next < rows.size() && rows[next].k < k_end; ++next)
      apply_plain_row(g, a, rows[next], dt);
    double* velocity = v.data();
    const std::vector<EdgedYieldingFace>& edged = edged_faces_[a];
    for (size_t& next = progress.next[a][1]; next < edged.size() && edged[next].face[2] < k_end;
         ++next) {
      const EdgedYieldingFace& f = edged[next];
      velocity[f.velocity] -= dt / f.density * edged_face_divergence(stencil, a, f, g.dx);
    }
    const std::vector<Index3>& rigid = rigid_faces_[a];
    for (size_t& next = progress.next[a][2]; next < rigid.size() && rigid[next][2] < k_end;
         ++next) {
      const Index3& f = rigid[next];
      const int64_t R = g.cell_type.offset(f[0], f[1], f[2]), L = R - g.cell_type.stride(a);
      const int64_t Rs = yielding_.offset(f[0], f[1], f[2]), Ls = Rs - yielding_.stride(a);
      const double dt_rho = dt / face_density(types[L], density[L], types[R], density[R]);
      (rigid_reaction ? rigid_reaction->of_face[a][next] : v(f[0], f[1], f[2])) -=
          dt_rho * stencil.rigid_face_reaction(a, f, L, Ls, R, Rs, g.dx);
    }
  }
}

void StressDivergence::add_to_rows(std::vector<FaceRow>& rows, const Index3& face, int count) {
  if (!rows.empty()) {
    FaceRow& last = rows.back();
    if (last.j == face[1] && last.k == face[2] && last.i + last.length == face[0]) {
      last.length += count;
      return;
    }
  }
  rows.push_back({face[0], face[1], face[2], count});
}

void StressDivergence::apply_plain_row(MacGrid& g, int a, const FaceRow& row, double dt) const {
  const Array3<uint8_t>& type = g.cell_type;
  const int64_t hi = type.offset(row.i, row.j, row.k), lo = hi - type.stride(a);
  const int64_t hi_s = yielding_.offset(row.i, row.j, row.k), lo_s = hi_s - yielding_.stride(a);
  const int b_1 = a == 0 ? 1 : 0, b_2 = a == 2 ? 1 : 2;
  dunesim::apply_plain_row(row.length, &g.vel[a](row.i, row.j, row.k), type.data() + lo,
                           type.data() + hi, g.density.data() + lo, g.density.data() + hi,
                           stress_[a].data() + lo_s,
                           stress_[SymTensor::index(a, b_1)].data() + lo_s,
                           stress_[SymTensor::index(a, b_2)].data() + lo_s, yielding_.stride(a),
                           yielding_.stride(b_1), yielding_.stride(b_2), dt, g.dx);
}

void apply_stress_divergence(const Topology& topo, MacGrid& g, const StressField& stress,
                             const Array3<uint8_t>& yielding, const Box& yielding_box,
                             double dt) {
  StressDivergence(topo, g, stress, yielding, yielding_box).apply(g, dt);
}

}  // namespace dunesim

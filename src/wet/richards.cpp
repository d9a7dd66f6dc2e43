#include "src/wet/richards.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "decomposition/petsc_errors.hpp"
#include "decomposition/reductions.hpp"
#include "src/particles/pore_water.hpp"
#include "src/particles/seeding.hpp"
#include "src/wet/seepage.hpp"

namespace dunesim {

namespace {

bool inside(const Index3& cells, const Index3& c) {
  for (int a = 0; a < 3; ++a)
    if (c[a] < 0 || c[a] >= cells[a]) return false;
  return true;
}

}  // namespace

// What one step's substeps share: the cells' sums (halo-filled) and the geometry of heads.
struct PoreWaterFlow::Substep {
  const MacGrid& g;
  const SoilWater& soil;
  const Index3& cells;
  const Array3<double>& count;       // porous sand particles per cell: what a face passes
  const Array3<double>& pores;       // their pores (pore_water.hpp's tally): what they hold
  const Array3<double>& free_water;  // water particles' content per cell
  const Array3<PetscInt>& unknown;   // the active cells' numbers, -1 elsewhere
  const Array3<double>& inflow_cap;  // water each face of a free-water cell may pass this step
  Vec3 up;                           // unit vector against gravity
  double water_weight;               // rho_w g, Pa per metre of head
  Box owned;
  double step;  // s, the whole step (its substeps share inflow_cap in proportion)

  double height(int i, int j, int k) const {
    return g.dx * ((i + 0.5) * up[0] + (j + 0.5) * up[1] + (k + 0.5) * up[2]);
  }
  // The total head h + z of the cell at `offset` in the cell arrays.
  double total_head(const Array3<double>& head, int64_t offset) const {
    const Index3 c = head.index_of(offset);
    return head.data()[offset] + height(c[0], c[1], c[2]);
  }

  // The face of porous cell `c` towards `side` along `axis`, with the heads `head`.
  Link link(const Array3<double>& head, const Index3& c, int axis, int side) const {
    Link l;
    Index3 nb = c;
    nb[axis] += side;
    if (!inside(cells, nb) || g.solid(nb[0], nb[1], nb[2])) return l;
    const int64_t self = count.offset(c[0], c[1], c[2]);
    l.other = count.offset(nb[0], nb[1], nb[2]);
    const double inv_dx2 = 1.0 / (g.dx * g.dx);
    const double h = head.data()[self];
    const double total = h + height(c[0], c[1], c[2]);
    if (count.data()[l.other] > 0.0) {
      if (unknown.data()[l.other] < 0) return l;  // dry beyond the front: K = 0
      l.kind = Link::Pore;
      l.conductance = soil.mean_conductivity(h, head.data()[l.other]) *
                      std::min(count.data()[self], count.data()[l.other]) * inv_dx2;
      return l;
    }
    const double half_cell = 2 * count.data()[self] * inv_dx2;  // the face is dx / 2 away
    const double face_height = height(c[0], c[1], c[2]) + 0.5 * side * up[axis] * g.dx;
    if (free_water.data()[l.other] > 0.0) {
      const double p = std::max(0.0, g.pressure.data()[l.other]);
      l.boundary_head = p / water_weight + height(nb[0], nb[1], nb[2]);
      l.kind = Link::Boundary;
      l.conductance = half_cell * soil.mean_conductivity(h, l.boundary_head - face_height);
      return l;
    }
    // Air: a seepage face while the sand is soaked and its head above the face's height.
    if (h < 0 || total <= face_height) return l;
    l.kind = Link::Boundary;
    l.boundary_head = face_height;
    l.conductance = half_cell * soil.mean_conductivity(h, 0.0);
    return l;
  }

  // A face from free water into the sand (cell's total head `total`, substep dt) passes at
  // most the face's share of the free water: the conductance is cut to what passes just
  // that at this iterate's heads, so no sand cell is promised water the free water lacks
  // (and passes on water it never gets).
  void limit_inflow(double dt, double total, Link& l) const {
    if (l.kind != Link::Boundary || l.boundary_head <= total) return;
    const double cap = inflow_cap.data()[l.other] * dt / step;
    const double flux = dt * l.conductance * (l.boundary_head - total);
    if (flux > cap) l.conductance *= cap / flux;
  }

  template <class Visit>
  void for_each_link(const Array3<double>& head, const Index3& c, Visit&& visit) const {
    for (int a = 0; a < 3; ++a)
      for (int side : {-1, 1}) {
        const Link l = link(head, c, a, side);
        if (l.kind != Link::Closed) visit(l);
      }
  }
};

PoreWaterFlow::PoreWaterFlow(const Topology& topo) : topo_(topo) {}

PoreWaterFlow::~PoreWaterFlow() {
  PetscBool finalized = PETSC_FALSE;
  PetscFinalized(&finalized);
  if (!finalized) release_petsc();
}

void PoreWaterFlow::release_petsc() {
  release_system();
  if (ksp_) KSPDestroy(&ksp_);
  ksp_ = nullptr;
}

// The step's matrix and vectors; the KSP stays, set up once (creating one each step looked
// up its types by name every time, 6% of a step on the storm surge scene).
void PoreWaterFlow::release_system() {
  if (ksp_) KSPReset(ksp_);
  if (matrix_) MatDestroy(&matrix_);
  if (rhs_) VecDestroy(&rhs_);
  if (solution_) VecDestroy(&solution_);
  matrix_ = nullptr;
  rhs_ = solution_ = nullptr;
}

void PoreWaterFlow::check(PetscErrorCode ierr, const char* what) const {
  check_petsc_on_every_rank(topo_.comm(), ierr, std::string(what) + " (pore water)");
}

// The cells the system solves for (active_ > 0): porous cells that hold water or touch free
// water, and `reach` layers of porous cells around them. Dry sand passes no water (K = 0 at
// theta = 0), so the rest cannot change until a wetting front reaches them; advance() widens
// the reach and solves again when one does. active_ holds the layer a cell joined in (1 for
// the wet cells), so that a layer grows only from the layers before it.
void PoreWaterFlow::mark_active(Halo& halo, const Substep& s, int reach) {
  active_.fill(0.0);
  double* active = active_.data();
  const double* water = water_start_.data();
  const double* free_water = s.free_water.data();
  const double* count = s.count.data();
  auto any_neighbour = [&](int64_t c, auto&& is) {
    for (int a = 0; a < 3; ++a)
      for (int side : {-1, 1})
        if (is(c + side * active_.stride(a))) return true;
    return false;
  };
  for_each_index(s.owned, [&](int i, int j, int k) {
    const int64_t c = active_.offset(i, j, k);
    if (count[c] == 0) return;
    const bool wet =
        water[c] > 0 || any_neighbour(c, [&](int64_t n) { return free_water[n] > 0; });
    active[c] = wet ? 1 : 0;
  });
  for (int layer = 2; layer <= reach + 1; ++layer) {
    halo.fill<double>({&active_});
    for_each_index(s.owned, [&](int i, int j, int k) {
      const int64_t c = active_.offset(i, j, k);
      if (count[c] == 0 || active[c] > 0) return;
      auto joined_before = [&](int64_t n) { return active[n] > 0 && active[n] < layer; };
      if (any_neighbour(c, joined_before)) active[c] = layer;
    });
  }
  halo.fill<double>({&active_});
}

// Whether the fluxes of the last substep wetted an active cell beside an inactive porous
// one (collective): the front has reached the edge of the cells solved for. Wetted: more
// than the Picard tolerance, below which the water the inactive cell would have drawn from
// it is below the tolerance too.
bool PoreWaterFlow::front_leaves_active_cells(const Substep& s) const {
  bool leaves = false;
  for_each_index(s.owned, [&](int i, int j, int k) {
    const int64_t c = active_.offset(i, j, k);
    if (leaves || active_.data()[c] == 0 ||
        water_end_.data()[c] <= kPicardTolerance * s.pores.data()[c])
      return;
    for (int a = 0; a < 3; ++a)
      for (int side : {-1, 1}) {
        const int64_t nb = c + side * active_.stride(a);
        leaves = leaves || (s.count.data()[nb] > 0 && active_.data()[nb] == 0);
      }
  });
  return any_rank(topo_, leaves);
}

// Numbers the active cells, sets up a matrix with their 7-point pattern, the vectors and
// CG. Once a step unless the front outruns the active cells: the cells do not change
// between its substeps.
void PoreWaterFlow::number_unknowns(Halo& halo) {
  release_system();
  const Box owned = topo_.owned_cells(topo_.rank());
  const Array3<double>& active = active_;
  unknown_.reset(topo_.local(Stagger::Cell), Stagger::Cell, -1);
  local_unknowns_ = 0;
  for_each_index(owned, [&](int i, int j, int k) { local_unknowns_ += active(i, j, k) > 0; });
  const int64_t first = exclusive_prefix_sum(topo_, local_unknowns_);
  PetscInt next = PetscInt(first);
  for_each_index(owned, [&](int i, int j, int k) {
    if (active(i, j, k) > 0) unknown_(i, j, k) = next++;
  });
  halo.fill<PetscInt>({&unknown_});
  std::vector<PetscInt> local_columns, remote_columns;
  const PetscInt end = PetscInt(first + local_unknowns_);
  for_each_index(owned, [&](int i, int j, int k) {
    if (active(i, j, k) == 0) return;
    PetscInt local = 1, remote = 0;
    for (int a = 0; a < 3; ++a)
      for (int side : {-1, 1}) {
        Index3 nb{i, j, k};
        nb[a] += side;
        const PetscInt column = unknown_(nb[0], nb[1], nb[2]);
        if (column >= 0) (column >= PetscInt(first) && column < end ? local : remote) += 1;
      }
    local_columns.push_back(local);
    remote_columns.push_back(remote);
  });
  MPI_Comm comm = topo_.comm();
  const PetscInt rows = PetscInt(local_unknowns_);
  check(MatCreateAIJ(comm, rows, rows, PETSC_DETERMINE, PETSC_DETERMINE, 0, local_columns.data(),
                     0, remote_columns.data(), &matrix_),
        "MatCreateAIJ");
  check(MatSetOption(matrix_, MAT_SYMMETRIC, PETSC_TRUE), "MatSetOption");
  check(VecCreateMPI(comm, rows, PETSC_DETERMINE, &rhs_), "VecCreateMPI");
  check(VecDuplicate(rhs_, &solution_), "VecDuplicate");
  if (!ksp_) create_krylov_solver();
}

void PoreWaterFlow::create_krylov_solver() {
  check(KSPCreate(topo_.comm(), &ksp_), "KSPCreate");
  check(KSPSetOptionsPrefix(ksp_, "pore_"), "KSPSetOptionsPrefix");
  check(KSPSetType(ksp_, KSPCG), "KSPSetType");
  // The rows are water balances in particle volumes: 1e-9 of one is far below the
  // Picard tolerance, whatever the number of cells.
  check(KSPSetTolerances(ksp_, 1e-12, 1e-9, PETSC_DEFAULT, 5000), "KSPSetTolerances");
  check(KSPSetNormType(ksp_, KSP_NORM_UNPRECONDITIONED), "KSPSetNormType");
  check(KSPSetInitialGuessNonzero(ksp_, PETSC_TRUE), "KSPSetInitialGuessNonzero");
  check(KSPSetFromOptions(ksp_), "KSPSetFromOptions");
}

// The modified Picard system for the iterate head_: per porous cell c with water W0 at the
// substep's start,  c C (h' - h) + c theta(h) - W0 = dt sum_faces T (H'_nb - H'),
// H = h + z, T the links' conductances, c the cell's pores in the first sand's particles
// (theta is that sand's curve; a cell of other porosity holds the same saturation).
void PoreWaterFlow::assemble(const Substep& s, double dt) {
  PetscScalar* b = nullptr;
  PetscScalar* x = nullptr;
  // A rank without unknowns may get null arrays: restore whatever was got.
  PetscErrorCode error = VecGetArray(rhs_, &b);
  const bool got_b = !error;
  if (!error) error = VecGetArray(solution_, &x);
  const bool got_x = got_b && !error;
  int64_t row_index = 0;
  links_.clear();
  links_per_cell_.clear();
  for_each_index(s.owned, [&](int i, int j, int k) {
    const double c = s.pores(i, j, k);
    if (unknown_(i, j, k) < 0 || error) return;
    const size_t first_link = links_.size();
    const double h = head_(i, j, k), z = s.height(i, j, k);
    const double capacity = c * s.soil.capacity(h);
    double diag = capacity;
    double rhs = capacity * h - (c * s.soil.water_content(h) - water_start_(i, j, k));
    PetscInt cols[7];
    PetscScalar vals[7];
    int n = 0;
    s.for_each_link(head_, {i, j, k}, [&](Link l) {
      s.limit_inflow(dt, h + z, l);
      links_.push_back(l);
      const double t = dt * l.conductance;
      diag += t;
      if (l.kind == Link::Pore) {
        const Index3 nb = unknown_.index_of(l.other);
        cols[n] = unknown_.data()[l.other];
        vals[n++] = -t;
        rhs += t * (s.height(nb[0], nb[1], nb[2]) - z);
      } else {
        rhs += t * (l.boundary_head - z);
      }
    });
    links_per_cell_.push_back(uint8_t(links_.size() - first_link));
    const PetscInt row = unknown_(i, j, k);
    cols[n] = row;
    vals[n++] = diag;
    b[row_index] = rhs;
    x[row_index++] = h;
    error = MatSetValues(matrix_, 1, &row, n, cols, vals, INSERT_VALUES);
  });
  if (got_b) VecRestoreArray(rhs_, &b);
  if (got_x) VecRestoreArray(solution_, &x);
  check(error, "assembling the pore-water system");
  check(MatAssemblyBegin(matrix_, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
  check(MatAssemblyEnd(matrix_, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
}

// Picard iterations from head_ (the heads of water_start_) until the heads' water agrees
// with the fluxes'; then water_end_ holds the fluxes' water and head_next_ the heads. False
// when the iteration did not settle (or CG failed) in kMaxPicardIterations.
bool PoreWaterFlow::solve_substep(Halo& halo, const Substep& s, double dt, PoreFlowStats& stats) {
  double relax = 1, last_worst = std::numeric_limits<double>::infinity();
  for (int iteration = 0; iteration < kMaxPicardIterations; ++iteration) {
    ++stats.picard_iterations;
    assemble(s, dt);
    check(KSPSetOperators(ksp_, matrix_, matrix_), "KSPSetOperators");
    check(KSPSolve(ksp_, rhs_, solution_), "KSPSolve");
    PetscInt krylov = 0;
    KSPConvergedReason reason;
    check(KSPGetIterationNumber(ksp_, &krylov), "KSPGetIterationNumber");
    check(KSPGetConvergedReason(ksp_, &reason), "KSPGetConvergedReason");
    stats.krylov_iterations += int(krylov);
    if (reason < 0) return false;  // the same on every rank: PETSc's reductions agree

    const PetscScalar* x = nullptr;
    check(VecGetArrayRead(solution_, &x), "VecGetArrayRead");
    head_next_.fill(0.0);
    int64_t row = 0;
    for_each_index(s.owned, [&](int i, int j, int k) {
      if (unknown_(i, j, k) >= 0) head_next_(i, j, k) = x[row++];
    });
    VecRestoreArrayRead(solution_, &x);
    halo.fill<double>({&head_next_});

    double mismatch = 0;
    const Link* link = links_.data();
    const uint8_t* links_here = links_per_cell_.data();
    for_each_index(s.owned, [&](int i, int j, int k) {
      if (unknown_(i, j, k) < 0) return;
      const double c = s.pores(i, j, k);
      const double h_next = head_next_(i, j, k);
      const double total = h_next + s.height(i, j, k);
      double water = water_start_(i, j, k);
      for (const Link* end = link + *links_here++; link < end; ++link) {
        const double other = link->kind == Link::Pore ? s.total_head(head_next_, link->other)
                                                      : link->boundary_head;
        water += dt * link->conductance * (other - total);
      }
      water_end_(i, j, k) = water;
      mismatch = std::max(mismatch, std::abs(s.soil.water_content(h_next) - water / c));
    });
    const double worst = global_max(topo_, mismatch);
    if (worst <= kPicardTolerance) return true;
    // The next iterate: where the fluxes leave a cell unsaturated, the head of the water
    // they leave (as in primary variable switching; a dry cell that fills in one iteration
    // would otherwise overshoot by its small capacity). An iteration that does worse than
    // the last halves the next step (down to 1/8), one that does better doubles it (up to
    // a whole step): a soaked cell beside dry ones otherwise cycles between a high head,
    // whose mean conductivity drains it, and a low one, whose conductivity lets it fill.
    relax = worst > last_worst ? std::max(0.125, 0.5 * relax) : std::min(1.0, 2 * relax);
    last_worst = worst;
    for_each_index(s.owned, [&](int i, int j, int k) {
      if (unknown_(i, j, k) < 0) return;
      const double c = s.pores(i, j, k);
      const double water = water_end_(i, j, k);
      const double next =
          water < c * s.soil.porosity() ? s.soil.head(water / c) : head_next_(i, j, k);
      head_next_(i, j, k) = head_(i, j, k) + relax * (next - head_(i, j, k));
    });
    halo.fill<double>({&head_next_});
    std::swap(head_, head_next_);
  }
  return false;
}

namespace {

// The content of the water particles in each cell (owned cells; zeroed first).
void tally_free_water(const Particles& p, const std::vector<MaterialSpec>& materials, double dx,
                      Array3<double>& free_water) {
  free_water.fill(0.0);
  const double inv_dx = 1.0 / dx;
  for (size_t n = 0; n < p.size(); ++n) {
    if (materials[p.material[n]].kind != MaterialKind::Water) continue;
    const auto [i, j, k] = particle_cell(p, n, inv_dx);
    free_water(i, j, k) += p.water_content[n];
  }
}

}  // namespace

// What each face of a free-water cell may pass into the sand over the step: the cell's water
// (its particles' and what it is owed) shared equally among its faces with porous sand.
void PoreWaterFlow::share_free_water(Halo& halo, const Index3& cells, const MacGrid& g) {
  const Array3<double>& count = g.pore_count;
  for_each_index(topo_.owned_cells(topo_.rank()), [&](int i, int j, int k) {
    int faces = 0;
    for (int a = 0; a < 3; ++a)
      for (int side : {-1, 1}) {
        Index3 nb{i, j, k};
        nb[a] += side;
        faces += inside(cells, nb) && count(nb[0], nb[1], nb[2]) > 0;
      }
    const double water = free_water_(i, j, k) + g.pore_release(i, j, k);
    inflow_cap_(i, j, k) = faces > 0 && count(i, j, k) == 0 ? water / faces : 0.0;
  });
  halo.fill<double>({&inflow_cap_});
}

void PoreWaterFlow::set_heads(const Substep& s) {
  head_.fill(0.0);
  const double* pores = s.pores.data();
  for (size_t c = 0; c < head_.size(); ++c)
    if (pores[c] > 0) head_.data()[c] = s.soil.head(water_start_.data()[c] / pores[c]);
}

// The water each boundary face of an accepted substep passed (links of head_, heads of
// head_next_, as in water_end_).
void PoreWaterFlow::record_exchanges(const Substep& s, double dt,
                                     std::vector<Exchange>& exchanges) const {
  const Link* link = links_.data();
  const uint8_t* links_here = links_per_cell_.data();
  for_each_index(s.owned, [&](int i, int j, int k) {
    if (unknown_(i, j, k) < 0) return;
    const double total = head_next_(i, j, k) + s.height(i, j, k);
    const int64_t self = head_.offset(i, j, k);
    for (const Link* end = link + *links_here++; link < end; ++link)
      if (link->kind == Link::Boundary)
        exchanges.push_back(
            {self, link->other, dt * link->conductance * (link->boundary_head - total)});
  });
}

void PoreWaterFlow::throw_unsettled(const MaterialSpec& sand, double dt) {
  release_petsc();
  char message[400];
  std::snprintf(message, sizeof message,
                "the pore water's Picard iteration did not settle in a step of %.3g s: sand "
                "material \"%s\" (conductivity %.3g m/s, van_genuchten_alpha %.3g 1/m, "
                "van_genuchten_n %.3g) gives heads this grid cannot follow; try a milder soil "
                "or a smaller max_dt",
                dt / (1 << kMaxSplits), sand.name.c_str(), sand.wet.conductivity,
                sand.wet.van_genuchten_alpha, sand.wet.van_genuchten_n);
  throw std::runtime_error(message);
}

PoreFlowStats PoreWaterFlow::advance(Halo& halo, const CaseConfig& config,
                                     const MaterialSpec& sand, int64_t step, double dt,
                                     MacGrid& g, Particles& p) {
  PoreFlowStats stats;
  if (dt <= 0) return stats;
  if (!soil_) soil_.emplace(sand.wet);  // the case's sand does not change
  const SoilWater& soil = *soil_;
  const PoreTally tally = pore_tally(g);
  tally_pore_water(p, config.materials, g.dx, tally);
  const Box block = topo_.local(Stagger::Cell);
  for (Array3<double>* a :
       {&head_, &head_next_, &water_start_, &water_end_, &free_water_, &active_, &inflow_cap_})
    if (!(a->box() == block)) a->reset(block, Stagger::Cell, 0.0);
  tally_free_water(p, config.materials, g.dx, free_water_);
  halo.fill<double>({&g.pore_count, &g.pore_water, &free_water_});
  if (!tally.one_porosity()) halo.fill<double>({&tally.pores});
  share_free_water(halo, config.cells, g);

  const Vec3& gravity = config.gravity;
  const double g_norm =
      std::sqrt(gravity[0] * gravity[0] + gravity[1] * gravity[1] + gravity[2] * gravity[2]);
  Vec3 up{0, 0, 0};
  if (g_norm > 0)
    for (int a = 0; a < 3; ++a) up[a] = -gravity[a] / g_norm;
  const double weight = pore_water_weight(sand, gravity);
  const Substep s{g,
                  soil,
                  config.cells,
                  g.pore_count,
                  tally.pores,
                  free_water_,
                  unknown_,
                  inflow_cap_,
                  up,
                  weight,
                  topo_.owned_cells(topo_.rank()),
                  dt};
  std::copy(g.pore_water.data(), g.pore_water.data() + g.pore_water.size(), water_start_.data());
  int reach = 2;
  mark_active(halo, s, reach);
  number_unknowns(halo);
  set_heads(s);

  std::vector<Exchange> exchanges;
  double done = 0, piece = dt;
  int splits = 0;
  while (done < dt) {
    piece = std::min(piece, dt - done);
    if (!solve_substep(halo, s, piece, stats)) {
      if (++splits > kMaxSplits) throw_unsettled(sand, dt);
      piece /= 2;
    } else if (front_leaves_active_cells(s)) {
      reach *= 2;  // and the substep again, over more cells
      mark_active(halo, s, reach);
      number_unknowns(halo);
    } else {
      record_exchanges(s, piece, exchanges);
      for_each_index(s.owned, [&](int i, int j, int k) {
        if (unknown_(i, j, k) >= 0) water_start_(i, j, k) = water_end_(i, j, k);
      });
      halo.fill<double>({&water_start_});
      ++stats.substeps;
      done += piece;
    }
    set_heads(s);
  }
  release_system();
  if (g.pore_head.size() > 0) keep_pressure_heads(halo, g);
  settle_exchanges(halo, config, step, exchanges, g, p, stats);
  return stats;
}

double pore_water_weight(const MaterialSpec& sand, const Vec3& gravity) {
  const double g_norm =
      std::sqrt(gravity[0] * gravity[0] + gravity[1] * gravity[1] + gravity[2] * gravity[2]);
  return sand.wet.pore_water_density * (g_norm > 0 ? g_norm : 9.81);
}

// The last accepted iterate's heads where the solve ran, 0 elsewhere, for the friction on the
// effective stress (effective_stress.hpp) until the next solve.
void PoreWaterFlow::keep_pressure_heads(Halo& halo, MacGrid& g) const {
  g.pore_head.fill(0.0);
  for_each_index(topo_.owned_cells(topo_.rank()), [&](int i, int j, int k) {
    if (unknown_(i, j, k) >= 0) g.pore_head(i, j, k) = head_next_(i, j, k);
  });
  halo.fill<double>({&g.pore_head});
}

// Pays the step's boundary exchanges: water out of the sand is owed to its open cell
// (grid.pore_release); water in comes from what the open cell is owed, then from its water
// particles, and where they hold too little the sand gets only a share. Then owed water
// becomes particles, and every porous sand particle holds its cell's mean.
void PoreWaterFlow::settle_exchanges(Halo& halo, const CaseConfig& config, int64_t step,
                                     const std::vector<Exchange>& exchanges, MacGrid& g,
                                     Particles& p, PoreFlowStats& stats) {
  Array3<double>& deposit = g.pore_exchange;
  Array3<double>& demand = g.pore_uptake;  // then the share of it granted
  Array3<double>& owed = g.pore_release;
  deposit.fill(0.0);
  demand.fill(0.0);
  for (const Exchange& e : exchanges)
    (e.water > 0 ? demand : deposit).data()[e.open] += std::abs(e.water);
  halo.sum<double>({&deposit, &demand});

  // Each open cell's owner: free_water_ becomes the share its particles give.
  const Box owned = topo_.owned_cells(topo_.rank());
  for_each_index(owned, [&](int i, int j, int k) {
    owed(i, j, k) += deposit(i, j, k);
    const double wanted = demand(i, j, k), particles = free_water_(i, j, k);
    const double granted = wanted > 0 ? std::min(1.0, (owed(i, j, k) + particles) / wanted) : 1;
    const double from_owed = std::min(owed(i, j, k), granted * wanted);
    owed(i, j, k) -= from_owed;
    const double from_particles = granted * wanted - from_owed;
    free_water_(i, j, k) = particles > 0 ? std::min(1.0, from_particles / particles) : 0.0;
    demand(i, j, k) = granted;
  });
  halo.fill<double>({&demand});
  for (const Exchange& e : exchanges) {
    if (e.water < 0) {
      stats.out_of_sand -= e.water;
      continue;
    }
    const double granted = demand.data()[e.open];
    water_start_.data()[e.sand] -= (1 - granted) * e.water;
    stats.into_sand += granted * e.water;
  }

  const double inv_dx = 1.0 / g.dx;
  bool emptied = false;
  for (size_t n = 0; n < p.size(); ++n) {
    if (config.materials[p.material[n]].kind != MaterialKind::Water) continue;
    const auto [i, j, k] = particle_cell(p, n, inv_dx);
    const double give = free_water_(i, j, k);
    if (give <= 0) continue;
    p.water_content[n] -= p.water_content[n] * give;
    emptied = emptied || p.water_content[n] <= 0.0;
  }
  if (emptied)
    p.keep_only([&](size_t n) {
      return config.materials[p.material[n]].kind != MaterialKind::Water ||
             p.water_content[n] > 0.0;
    });
  release_owed_water(config, step, g, p, stats);

  const PoreTally tally = pore_tally(g);
  const std::vector<double> shares = pore_shares(config.materials);
  for (size_t n = 0; n < p.size(); ++n) {
    const double share = shares[p.material[n]];
    if (share == 0.0) continue;
    const auto [i, j, k] = particle_cell(p, n, inv_dx);
    p.water_content[n] = particle_water(water_start_(i, j, k), tally.pores(i, j, k), share);
  }
}

// Owed water in a cell that now holds porous sand goes into its pores while they have room;
// the rest, as in an open cell, becomes one water particle once half a particle is owed (at
// most a whole one a step).
void PoreWaterFlow::release_owed_water(const CaseConfig& config, int64_t step, MacGrid& g,
                                       Particles& p, PoreFlowStats& stats) {
  const int water_material = first_water_material(config.materials);
  Array3<double>& owed = g.pore_release;
  const Array3<double>& pores = pore_tally(g).pores;
  for_each_index(topo_.owned_cells(topo_.rank()), [&](int i, int j, int k) {
    double& o = owed(i, j, k);
    if (o <= 0) return;
    const double room = soil_->porosity() * pores(i, j, k) - water_start_(i, j, k);
    const double into_pores = std::clamp(room, 0.0, o);
    water_start_(i, j, k) += into_pores;
    o -= into_pores;
    if (o < kReleaseQuantum || water_material < 0 || g.solid(i, j, k)) return;
    const double water = std::min(o, 1.0);
    const int64_t cell = global_cell_index(config.cells, i, j, k);
    const int64_t id =
        created_particle_id(ParticleOrigin::Seepage, config.cells, step, cell, kReleaseSlot);
    const int sub = int(step % kParticlesPerCell);
    add_free_water_particle(config, g, water_material, {i, j, k}, sub, id, water, p);
    o -= water;
    ++stats.particles_created;
  });
}

}  // namespace dunesim

#include "src/driver/simulation_checkpoint.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "decomposition/redistribute.hpp"
#include "decomposition/reductions.hpp"

namespace dunesim {
namespace {

// "" when every particle lies in a cell of the grid and is of a material of the case;
// otherwise where the first that does not is. Stored values the checksums could not catch
// (written wrong, or by hand) would otherwise surface later as lost particles.
std::string restored_particles_problem(const Particles& p, const CaseConfig& config) {
  const double dx = config.cell_size;
  for (size_t n = 0; n < p.size(); ++n) {
    const double position[3] = {p.x[n], p.y[n], p.z[n]};
    for (int a = 0; a < 3; ++a) {
      const double cell = std::floor(position[a] / dx);
      if (!(cell >= 0 && cell < config.cells[size_t(a)]))
        return fmt::format(
            "a particle lies outside the domain [0, {}] x [0, {}] x [0, {}] m: "
            "id {} at ({}, {}, {}) m",
            config.domain_size[0], config.domain_size[1], config.domain_size[2], p.id[n], p.x[n],
            p.y[n], p.z[n]);
    }
    if (p.material[n] >= config.materials.size())
      return fmt::format(
          "a particle is of a material the case does not have: id {} of "
          "material {}, the case has {}",
          p.id[n], int(p.material[n]), config.materials.size());
  }
  return "";
}

}  // namespace

std::string write_checkpoint(CheckpointWriter& writer, Simulation& sim, double last_dt,
                             int64_t frames_written) {
  const CaseConfig& config = sim.config();
  CheckpointCase source{config.file, config.name, config.text,
                        run_record_of(config, sim.topology().size())};
  RunProgress progress{sim.time(), sim.steps(), last_dt, frames_written};
  std::vector<CellField> fields;
  // The grid arrays a step reads before it writes them.
  for (const MacGrid::CarriedArray& a : sim.grid().carried_between_steps())
    fields.push_back({a.name, a.array});
  for (const MacGrid::CarriedCounts& c : sim.grid().carried_counts_between_steps())
    fields.push_back({c.name, c.array});
  return writer.write(sim.topology(), source, progress, sim.particles(), fields);
}

std::unique_ptr<Simulation> restore_simulation(const CaseConfig& config,
                                               CheckpointReader& checkpoint, MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const bool same_layout = ranks == checkpoint.ranks();
  if (config.cells != checkpoint.cells())
    throw std::runtime_error(checkpoint.path() +
                             ": the checkpoint's grid has other cell "
                             "counts than the case being restored");
  // The checkpoint brings the particles: seeding the case's too would hold two sets at once.
  const Simulation::Seeding none = Simulation::Seeding::kNone;
  auto sim = same_layout ? std::make_unique<Simulation>(config, comm, checkpoint.cuts(), none)
                         : std::make_unique<Simulation>(config, comm, none);
  const Topology& topo = sim->topology();
  Particles particles = checkpoint.read_particles();
  const RankError damage =
      first_error_on_any_rank(comm, restored_particles_problem(particles, config));
  if (damage.failed())
    throw std::runtime_error(fmt::format("{}: damaged checkpoint: {} (on rank {})",
                                         checkpoint.path(), damage.message, damage.rank));
  if (!same_layout) redistribute_particles(topo, config.cell_size, particles);
  for (const MacGrid::CarriedArray& a : sim->grid().carried_between_steps()) {
    if (!a.in_every_checkpoint && !checkpoint.has_cell_field(a.name)) continue;
    checkpoint.read_cell_field(a.name, topo.owned_cells(topo.rank()), *a.array);
    sim->halo().fill<double>({a.array});
  }
  // Counts that older checkpoints lack start at zero.
  for (const MacGrid::CarriedCounts& c : sim->grid().carried_counts_between_steps()) {
    if (!checkpoint.has_cell_field(c.name)) continue;
    checkpoint.read_cell_counts(c.name, topo.owned_cells(topo.rank()), *c.array);
  }
  sim->restore(std::move(particles), checkpoint.progress().time, checkpoint.progress().steps);
  return sim;
}

}  // namespace dunesim

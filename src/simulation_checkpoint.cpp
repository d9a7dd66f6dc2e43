#include "src/simulation_checkpoint.hpp"

#include <stdexcept>

#include "decomposition/redistribute.hpp"

namespace dunesim {
namespace {

// The grid arrays a step reads before it writes them. The pressure is the solver's initial
// guess: without it a restarted run would converge to a slightly different pressure.
std::vector<CellField> persistent_cell_fields(Simulation& sim) {
  return {{"pressure", &sim.grid().pressure}};
}

}  // namespace

std::string write_checkpoint(CheckpointWriter& writer, Simulation& sim, double last_dt,
                             int64_t frames_written) {
  const CaseConfig& config = sim.config();
  CheckpointCase source{config.file, config.name, config.text};
  RunProgress progress{sim.time(), sim.steps(), last_dt, frames_written};
  return writer.write(sim.topology(), source, progress, sim.particles(),
                      persistent_cell_fields(sim));
}

std::unique_ptr<Simulation> restore_simulation(const CaseConfig& config,
                                               CheckpointReader& checkpoint, MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const bool same_layout = ranks == checkpoint.ranks();
  if (config.cells != checkpoint.cells())
    throw std::runtime_error(checkpoint.path() + ": the checkpoint's grid has other cell "
                             "counts than the case being restored");
  auto sim = same_layout ? std::make_unique<Simulation>(config, comm, checkpoint.cuts())
                         : std::make_unique<Simulation>(config, comm);
  const Topology& topo = sim->topology();
  Particles particles = checkpoint.read_particles();
  if (!same_layout) redistribute_particles(topo, config.cell_size, particles);
  for (const CellField& field : persistent_cell_fields(*sim)) {
    checkpoint.read_cell_field(field.name, topo.owned_cells(topo.rank()), *field.array);
    sim->halo().fill<double>({field.array});
  }
  sim->restore(std::move(particles), checkpoint.progress().time, checkpoint.progress().steps);
  return sim;
}

}  // namespace dunesim

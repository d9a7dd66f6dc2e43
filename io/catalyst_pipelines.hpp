// What dunesim and its Catalyst module (libdunesim_catalyst.so, io/catalyst_pipelines.cpp)
// share. The module holds everything that needs ParaView and VTK, about 460 shared libraries
// that take over a second to map and relocate; dunesim loads it only for a case that names
// Catalyst scripts (CatalystAdaptor), so every other run starts without them.
#pragma once
#include <mpi.h>

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "decomposition/particles.hpp"
#include "io/catalyst_channels.hpp"
#include "io/frame_writer.hpp"  // GridFieldView: Catalyst gets what a frame gets

namespace dunesim {

// What the pipelines are set up with.
struct CatalystSetup {
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<std::string> scripts;   // Catalyst V2 pipeline scripts
  std::string extracts_directory;     // where the scripts' extracts go (created)
  std::array<int, 3> global_cells{};  // the grid, with its origin at 0
  double cell_size = 0;
  std::vector<double> material_porosity;  // one per material: water content to saturation
  int64_t particle_stride = 1;  // the particle channel holds the ids this divides (1: all)
  // The channels offered (io/catalyst_channels.hpp): Catalyst takes all of them at its first
  // call.
  std::vector<std::string> channels{kCatalystChannels.begin(), kCatalystChannels.end()};
};

// The case's pipeline scripts, run on the state handed to coprocess (CatalystAdaptor).
class CatalystPipelines {
 public:
  virtual ~CatalystPipelines() = default;
  virtual void coprocess(const Particles& particles, const GridFieldView& cell_field,
                         const std::function<std::vector<GridFieldView>()>& material_fractions,
                         double time, int64_t step) = 0;
};

// The module's entry point, `extern "C"` so that dlsym finds it by this name: collective over
// setup.comm, throws std::runtime_error on every rank if Catalyst or a script cannot be set up.
using MakeCatalystPipelines = CatalystPipelines* (*)(const CatalystSetup& setup);
inline constexpr const char* kMakeCatalystPipelines = "dunesim_make_catalyst_pipelines";
// The module's file name, next to the dunesim executable.
inline constexpr const char* kCatalystModuleFile = "libdunesim_catalyst.so";

}  // namespace dunesim

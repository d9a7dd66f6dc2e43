// In situ visualisation with ParaView Catalyst (the legacy API of ParaView 5.11): every few
// steps the ranks hand their particles and grid pressure to Python pipeline scripts, which
// render images or write reduced extracts while the run goes on. Built only with
// DUNESIM_WITH_CATALYST. ParaView itself lives in a module that the constructor loads
// (io/catalyst_pipelines.hpp), so that runs without Catalyst never load it.
#pragma once
#include <mpi.h>

#include <functional>
#include <memory>

#include "decomposition/particles.hpp"
#include "io/catalyst_pipelines.hpp"
#include "io/frame_writer.hpp"  // GridFieldView: Catalyst gets what a frame gets

namespace dunesim {

class CatalystAdaptor {
 public:
  // Collective over setup.comm. Loads the Catalyst module (libdunesim_catalyst.so next to the
  // executable, or where the build put it), then every script, and makes the extracts
  // directory the one the scripts' extracts go to. Throws std::runtime_error on every rank if
  // the module, Catalyst or a script cannot be set up.
  explicit CatalystAdaptor(const CatalystSetup& setup);
  // Finalises Catalyst; must run before MPI_Finalize, which Catalyst's communicator outlives
  // otherwise. The module stays loaded: ParaView's libraries are not made to be unloaded.
  ~CatalystAdaptor();
  CatalystAdaptor(const CatalystAdaptor&) = delete;
  CatalystAdaptor& operator=(const CatalystAdaptor&) = delete;

  // Collective. Runs every pipeline that wants this step on the given state, offering the
  // setup's channels only: channel
  // "input" holds this rank's particles as a vtkPolyData (points with a vertex cell each;
  // point arrays velocity, speed, id, material, and water_content and saturation as frames
  // hold them), channel "grid" the cells this rank owns of `cell_field` as a vtkImageData
  // piece (a cell array named after the field), and channel "material_fraction" the fields
  // that `material_fractions` returns, sampled at cell centres (a point array each; see
  // cell_centres_to_vtk in catalyst_pipelines.cpp). `material_fractions` is collective and called
  // only when a pipeline asks for that channel; its fields must hold, in the ghost layer and the
  // wall layers, the values the owners hold. Throws std::runtime_error on every rank if a
  // pipeline failed on any rank, or if after the first call a script asks for a channel that
  // is not offered.
  void coprocess(const Particles& particles, const GridFieldView& cell_field,
                 const std::function<std::vector<GridFieldView>()>& material_fractions,
                 double time, int64_t step);

 private:
  std::unique_ptr<CatalystPipelines> pipelines_;
};

}  // namespace dunesim

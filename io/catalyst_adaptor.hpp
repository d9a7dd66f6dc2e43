// In situ visualisation with ParaView Catalyst (the legacy API of ParaView 5.11): every few
// steps the ranks hand their particles and grid pressure to Python pipeline scripts, which
// render images or write reduced extracts while the run goes on. Built only with
// DUNESIM_WITH_CATALYST.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

class vtkCPProcessor;

namespace dunesim {

class Simulation;

class CatalystAdaptor {
 public:
  // Collective over comm. Loads every script (Catalyst V2 pipeline scripts) and makes
  // `extracts_directory` the directory that the scripts' extracts go to. Throws
  // std::runtime_error on every rank if Catalyst or a script cannot be set up.
  CatalystAdaptor(MPI_Comm comm, const std::vector<std::string>& scripts,
                  const std::string& extracts_directory);
  // Finalises Catalyst; must run before MPI_Finalize, which Catalyst's communicator outlives
  // otherwise.
  ~CatalystAdaptor();
  CatalystAdaptor(const CatalystAdaptor&) = delete;
  CatalystAdaptor& operator=(const CatalystAdaptor&) = delete;

  // Collective. Runs every pipeline that wants this step on the current state: channel
  // "input" holds the particles as a vtkPolyData per rank (points with a vertex cell each;
  // point arrays velocity, speed, id, material), channel "grid" the pressure of the cells
  // each rank owns as a vtkImageData piece (cell array pressure). Throws
  // std::runtime_error on every rank if a pipeline failed on any rank.
  void coprocess(Simulation& sim, int64_t step);

 private:
  MPI_Comm comm_;
  vtkCPProcessor* processor_ = nullptr;
};

}  // namespace dunesim

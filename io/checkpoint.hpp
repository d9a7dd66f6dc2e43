// Checkpoints: the whole state of a run between two steps in one parallel HDF5 file of global
// arrays, so that a run continues bit for bit on the same number of ranks, or on any other.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "decomposition/array3.hpp"
#include "decomposition/load_balance.hpp"
#include "decomposition/topology.hpp"
#include "decomposition/particles.hpp"
#include "io/run_record.hpp"

namespace dunesim {

// Where a run stands between two steps, besides its particles and pressure.
struct RunProgress {
  double time = 0;             // simulated time, s
  int64_t steps = 0;           // steps taken
  double last_dt = 0;          // s, the step that led here (0 before the first)
  int64_t frames_written = 0;  // output frames so far: the next frame's number
};

// The case a checkpoint was written from.
struct CheckpointCase {
  std::string file;  // the path it was read from (mesh files are found relative to it)
  std::string name;
  std::string text;  // the case file's text: a restart runs this, not the file as it is now
  // What /run records besides the case's file and text (those above) and the writing ranks,
  // which the writer fills in. A checkpoint reader leaves it empty: restarts do not need it.
  RunRecord run;
};

// A cell-centred grid array that carries state from one step to the next, stored as the
// global array grid/<name> (cells[2] x cells[1] x cells[0]) of every rank's owned cells:
// doubles, or bytes for counts (stored as bytes, so a checkpoint makes no wider copy of them).
struct CellField {
  std::string name;
  std::variant<Array3<double>*, Array3<uint8_t>*> array;  // covers at least the owned cells
};

// An upper bound on the size of the checkpoint CheckpointWriter::write makes of these
// (estimated_file_bytes: the room it checks for before writing).
uint64_t checkpoint_file_bytes(const CheckpointCase& source, int64_t particle_count,
                               const Particles& particles, const Topology& topo,
                               const std::vector<CellField>& fields);

class CheckpointWriter {
 public:
  // Keeps the `keep` (>= 1) newest checkpoints in `directory`, which is created when needed.
  // `stop_requested` (whether the run was asked to stop) only serves the test hook
  // DUNESIM_TEST_PAUSE_IN_CHECKPOINT (io/README.md): it ends the hook's pause.
  CheckpointWriter(MPI_Comm comm, std::string directory, int keep,
                   std::function<bool()> stop_requested = {});

  // Collective. Writes <directory>/checkpoint_<steps>.h5 through a .tmp file that is synced
  // to disk before it is renamed, then points <directory>/checkpoint_latest at it, and only
  // then deletes older checkpoints beyond `keep`: a crash at any moment leaves `latest`
  // naming a complete checkpoint. Returns the new checkpoint's path.
  std::string write(const Topology& topo, const CheckpointCase& source,
                    const RunProgress& progress, const Particles& particles,
                    const std::vector<CellField>& fields);

  const std::string& directory() const { return directory_; }

 private:
  MPI_Comm comm_;
  std::string directory_;
  int keep_;
  std::function<bool()> stop_requested_;
};

// Collective. The checkpoint a restart reads: `which` is "latest" (the file that
// <directory>/checkpoint_latest names) or the path of a checkpoint file.
std::string find_checkpoint(MPI_Comm comm, const std::string& directory,
                            const std::string& which);

class CheckpointReader {
 public:
  // Collective: opens a checkpoint and reads everything but the particles and the pressure.
  // Throws std::runtime_error naming the file on every rank if it is not a readable checkpoint.
  CheckpointReader(MPI_Comm comm, std::string path);
  ~CheckpointReader();
  CheckpointReader(const CheckpointReader&) = delete;
  CheckpointReader& operator=(const CheckpointReader&) = delete;

  const std::string& path() const { return path_; }
  const CheckpointCase& source() const { return source_; }
  const RunProgress& progress() const { return progress_; }
  int ranks() const { return ranks_; }                        // how many ranks wrote it
  const BlockCuts& cuts() const { return cuts_; }             // and their block layout
  const Index3& cells() const { return cells_; }              // the global grid
  int64_t particle_count() const { return particle_count_; }  // over all ranks

  // Collective. On as many ranks as wrote the checkpoint: the particles this rank held, in
  // their order. On any other number: an even share of them, to be sent to their owners.
  // Throws "<path>: damaged checkpoint: ..." on every rank for data that fails its checksum
  // and for values that are not finite numbers.
  Particles read_particles();
  // Collective. Fills the in-domain cells `cells` of `array` from grid/<name>; damaged data
  // and values that are not finite are reported like read_particles'.
  void read_cell_field(const std::string& name, const Box& cells, Array3<double>& array);
  // The same for counts held in bytes: stored as bytes, or as doubles by older checkpoints,
  // which must then be whole numbers from 0 to 255.
  void read_cell_counts(const std::string& name, const Box& cells, Array3<uint8_t>& counts);
  // Collective. Whether the file stores grid/<name> (fields added after a checkpoint was
  // written are absent from it).
  bool has_cell_field(const std::string& name);

 private:
  struct File;
  // Parts of the constructor; the rank table is checked before anything is sized from it.
  void read_progress_and_case();
  void read_layout();
  void read_rank_table();
  // Collective: read_cell_field's reading, for either element type.
  template <class T>
  void read_cells(const std::string& name, const Box& cells, Array3<T>& array);

  MPI_Comm comm_;
  std::string path_;
  std::unique_ptr<File> file_;
  CheckpointCase source_;
  RunProgress progress_;
  int ranks_ = 0;
  BlockCuts cuts_;
  Index3 cells_{0, 0, 0};
  int64_t particle_count_ = 0;
  std::vector<int64_t> rank_counts_, rank_offsets_;  // rows each writing rank held
};

}  // namespace dunesim

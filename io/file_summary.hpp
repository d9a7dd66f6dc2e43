// `dunesim info`: a summary of an output frame or a checkpoint, for people and job scripts.
#pragma once
#include <string>

namespace dunesim {

// Reads `path` serially (no MPI) and describes it: its kind (frame or checkpoint), simulated
// time, step, particle count, every dataset with its type and shape, for a checkpoint the
// case and the ranks that wrote it, and every field of the /run group (the case text: its
// length and its first 20 lines, or all of them when it has no more). Throws std::runtime_error
// naming the file when it is neither a frame nor a checkpoint.
std::string summarize_output_file(const std::string& path);

}  // namespace dunesim

// Reading an input file (a case file, a mesh) whole, refusing what cannot be one: a
// directory, a device or a pipe (/dev/zero would never end), or a file above a size limit.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace dunesim {

// Why a file could not be read: "No such file or directory", "it is a directory", ...
class InputFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The file's bytes. Throws InputFileError unless `path` is a regular file of at most
// `max_bytes` bytes that can be read.
std::string read_input_file(const std::string& path, uint64_t max_bytes);

// "16 MiB", "1.5 GiB", "312 bytes": a size for a message.
std::string format_bytes(uint64_t bytes);

}  // namespace dunesim

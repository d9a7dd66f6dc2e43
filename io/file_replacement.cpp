#include "io/file_replacement.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace dunesim {

void sync_to_disk(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0)
    throw std::runtime_error("cannot open " + path + " to sync it: " + std::strerror(errno));
  int status = ::fsync(fd);
  int error = errno;
  ::close(fd);
  if (status != 0) throw std::runtime_error("cannot sync " + path + ": " + std::strerror(error));
}

void rename_or_throw(const fs::path& from, const fs::path& to) {
  std::error_code error;
  fs::rename(from, to, error);
  if (error)
    throw std::runtime_error("cannot rename " + from.string() + " to " + to.string() + ": " +
                             error.message());
}

void replace_file(const fs::path& path, const std::string& text) {
  fs::path temporary = path;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw std::runtime_error("cannot write " + temporary.string());
  }
  sync_to_disk(temporary.string());
  rename_or_throw(temporary, path);
  const fs::path directory = path.has_parent_path() ? path.parent_path() : fs::path(".");
  sync_to_disk(directory.string());
}

}  // namespace dunesim

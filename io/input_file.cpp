#include "io/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace dunesim {

namespace {

// What a file that is not a regular file is, for the message.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISSOCK(mode)) return "a socket";
  return "something else";
}

// Closes the descriptor on every way out.
class OpenFile {
 public:
  explicit OpenFile(const std::string& path)
      // Non-blocking: opening a pipe for reading would otherwise wait for a writer.
      : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)) {
    if (fd_ < 0) throw InputFileError(std::strerror(errno));
  }
  ~OpenFile() { ::close(fd_); }
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

std::string too_large(uint64_t bytes, uint64_t max_bytes) {
  return "it is " + format_bytes(bytes) + ", more than the " + format_bytes(max_bytes) +
         " allowed";
}

}  // namespace

std::string format_bytes(uint64_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = double(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 6) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.3g %s", value, units[unit]);
  return text;
}

std::string read_input_file(const std::string& path, uint64_t max_bytes) {
  OpenFile file(path);
  struct stat status {};
  if (::fstat(file.fd(), &status) != 0) throw InputFileError(std::strerror(errno));
  // fstat of the open file, not stat of the name: what is checked is what is read.
  if (!S_ISREG(status.st_mode))
    throw InputFileError(std::string("it is ") + kind_of(status.st_mode) +
                         ", not a regular file");
  if (uint64_t(status.st_size) > max_bytes)
    throw InputFileError(too_large(uint64_t(status.st_size), max_bytes));
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(file.fd(), buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputFileError(std::strerror(errno));
    }
    text.append(buffer, size_t(n));
    // A file that grows while it is read is held to the same limit.
    if (text.size() > max_bytes) throw InputFileError(too_large(text.size(), max_bytes));
  }
  return text;
}

}  // namespace dunesim

//===- Files.cpp - The files mirage-run reads, and their limits -----------===//

#include "Files.h"

#include <cerrno>
#include <cstring>
#include <new>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mirage_run {

namespace {

/// An open file descriptor, closed on every path out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0)
      ::close(fd);
  }
};

const char *kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/// Opens `path` and checks that it is a regular file; its size in `size`.
bool openRegular(const std::string &path, Fd &f, uint64_t &size,
                 std::string &err) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
  // writer. It changes nothing for a regular file.
  f.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (f.fd < 0) {
    err = std::strerror(errno);
    return false;
  }
  struct stat st;
  if (::fstat(f.fd, &st) != 0) {
    err = std::strerror(errno);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    err = std::string("not a regular file (") + kindOf(st.st_mode) + ")";
    return false;
  }
  size = uint64_t(st.st_size);
  return true;
}

} // namespace

bool regularFileSize(const std::string &path, uint64_t &size, std::string &err) {
  Fd f;
  return openRegular(path, f, size, err);
}

bool readRegularFile(const std::string &path, uint64_t maxBytes,
                     std::string &out, std::string &err) {
  Fd f;
  uint64_t size = 0;
  if (!openRegular(path, f, size, err))
    return false;
  if (size > maxBytes) {
    err = std::to_string(size) + " bytes, over the limit of " +
          std::to_string(maxBytes);
    return false;
  }
  // A stream would swallow a failed allocation and hand the parser a
  // truncated text ("invalid JSON"); say what happened instead.
#if defined(__cpp_exceptions)
  try {
    out.assign(size_t(size), '\0');
  } catch (const std::bad_alloc &) {
    err = "out of memory reading " + std::to_string(size) + " bytes";
    return false;
  }
#else
  out.assign(size_t(size), '\0'); // aborts when out of memory
#endif
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::read(f.fd, &out[done], out.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      err = std::strerror(errno);
      return false;
    }
    if (n == 0)
      break;
    done += size_t(n);
  }
  char extra;
  ssize_t more = ::read(f.fd, &extra, 1);
  if (done != out.size() || more > 0) {
    err = "the file changed size while it was read";
    return false;
  }
  if (more < 0) {
    err = std::strerror(errno);
    return false;
  }
  return true;
}

} // namespace mirage_run

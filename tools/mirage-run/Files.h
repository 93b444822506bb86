//===- Files.h - The files mirage-run reads, and their limits ---*- C++ -*-===//
//
// Every file mirage-run reads (manifests, PTX, expected outputs) is first
// checked to be a regular file, and one it reads whole to be within a size
// limit, before a byte is read: "/dev/zero" as the PTX would read without
// end, a FIFO would block the open forever, and a 1 GiB manifest would
// exhaust memory. The limits are stated here and nowhere else.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_RUN_FILES_H
#define MIRAGE_RUN_FILES_H

#include <cstdint>
#include <string>

namespace mirage_run {

/// A manifest has one short entry per buffer and per kernel: a few KiB for a
/// decoder layer. 16 MiB is thousands of times that.
constexpr uint64_t kMaxManifestBytes = uint64_t(16) << 20;
/// The PTX of one graph: tens to hundreds of KiB. 256 MiB is ample.
constexpr uint64_t kMaxPtxBytes = uint64_t(256) << 20;

/// Checks that `path` is a regular file and stores its size. Opens it without
/// blocking (a FIFO would wait for a writer) and asks the open file, so the
/// answer is about the file that would be read. False with `err` set (a
/// reason without the path) otherwise.
bool regularFileSize(const std::string &path, uint64_t &size, std::string &err);

/// Reads the regular file at `path` whole into `out`: refuses other kinds of
/// file and files over `maxBytes` (naming the limit), a file that changes
/// size while it is read, and a failed allocation ("out of memory"), each
/// with `err` set (a reason without the path).
bool readRegularFile(const std::string &path, uint64_t maxBytes,
                     std::string &out, std::string &err);

} // namespace mirage_run

#endif // MIRAGE_RUN_FILES_H

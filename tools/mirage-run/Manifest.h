//===- Manifest.h - The kernel-graph manifest mirage-run runs ---*- C++ -*-===//
//
// A manifest (format "mirage-run-manifest-1", written by the
// mirage-kernels-to-ptx pipeline beside the PTX) describes one kernel graph:
// its device buffers and the kernels to launch on them, in order. Loading one
// validates everything that can be checked without a GPU, the PTX entry
// points and their parameter counts included, so that `--dry-run` on the
// CPU machine catches what would otherwise fail on the GPU one. The schema is
// documented in tools/mirage-run/README.md.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_RUN_MANIFEST_H
#define MIRAGE_RUN_MANIFEST_H

#include "DType.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace mirage_run {

enum class Role { Input, Temp, Output };
const char *roleName(Role r);

struct Buffer {
  std::string name;
  Role role = Role::Temp;
  DType dtype = DType::F32;
  std::vector<uint64_t> shape;
  uint64_t elements = 0;
  uint64_t bytes = 0;
  /// input_index of an input, output_index of an output, -1 for a temp.
  int ioIndex = -1;
  /// An output's expected result (raw little-endian f32), as written in the
  /// manifest and resolved against its directory; empty when absent.
  std::string expected, expectedPath;
};

struct Kernel {
  std::string name;
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned dynamicSharedBytes = 0;
  /// The manifest's optional "static_shared_bytes": the `.shared` bytes the
  /// kernel declares in the PTX, as the writer counted them.
  std::optional<unsigned> staticSharedBytes;
  /// Buffer indices, one per kernel parameter (a bare device pointer).
  std::vector<size_t> args;
  /// The manifest's optional "waits_on_previous": the kernel starts with
  /// griddepcontrol.wait, so it may be launched as a programmatic dependent
  /// of the kernel before it (docs/Rationale/Lowering.md).
  bool waitsOnPrevious = false;
};

struct Manifest {
  std::string path;      // as given on the command line
  std::string graph, reference, chip;
  std::string ptx, ptxPath; // as written, and resolved
  std::string ptxText;      // the PTX itself
  uint64_t seed = 0;
  double tolerance = 0;
  std::vector<Buffer> buffers;
  std::vector<Kernel> kernels;
  /// Buffer index of input_index i / output_index i.
  std::vector<size_t> inputs, outputs;

  uint64_t inputBytes() const;
  uint64_t outputBytes() const;
  /// What one run of the graph must move at least: every input read once and
  /// every output written once (temps are the fusion's business).
  uint64_t bytesMoved() const { return inputBytes() + outputBytes(); }
};

/// Reads, parses and validates the manifest at `path`, the PTX it names and
/// the sizes of its expected files. On error returns false with `err` set.
bool loadManifest(const std::string &path, Manifest &m, std::string &err);

/// Checks that `ref` can run on `m`'s inputs and be compared with its outputs:
/// the same inputs (by input_index) with the same dtypes and shapes, and the
/// same outputs (by output_index) with the same shapes.
bool checkReferenceCompatible(const Manifest &m, const Manifest &ref,
                              std::string &err);

std::string shapeString(const std::vector<uint64_t> &shape);

/// Prints what running `m` would do: buffers, kernels, bytes moved.
void printPlan(const Manifest &m, FILE *out);

} // namespace mirage_run

#endif // MIRAGE_RUN_MANIFEST_H

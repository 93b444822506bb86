//===- PtxShared.h - Static shared memory of PTX kernels --------*- C++ -*-===//
//
// How many bytes of static `.shared` memory each `.entry` of a PTX module
// declares, read from the PTX text alone: the sizes of the `.shared`
// variables declared in the kernel's body, plus those of the module-level
// ones its body (or a `.func` it references, transitively) names. One module
// holds several kernels, and a module-level variable counts for each kernel
// that uses it. `.extern .shared` arrays are the dynamic region and count
// nothing. Alignment padding between variables is not counted: ptxas's
// count (`ptxas -v`, "N bytes smem") is exact and preferred when there is a
// ptxas.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_RUN_PTX_SHARED_H
#define MIRAGE_RUN_PTX_SHARED_H

#include <cstdint>
#include <map>
#include <string>

namespace mirage_run {

/// Fills `bytes` with the static shared bytes of every `.entry` in `ptx`, by
/// entry name. Fails with `err` set on a `.shared` declaration it cannot size.
bool staticSharedBytesPerEntry(const std::string &ptx,
                               std::map<std::string, uint64_t> &bytes,
                               std::string &err);

} // namespace mirage_run

#endif // MIRAGE_RUN_PTX_SHARED_H

//===- ResultCache.h - Embedded SQLite cache of search results --*- C++ -*-===//
//
// The superoptimizer's result cache: an SQLite file, by default
// $XDG_CACHE_HOME/mirage-mlir/results.sqlite (or ~/.cache/mirage-mlir/...),
// keyed by the canonical hash key (CanonicalHash.h: graph, shapes, dtypes,
// target, search options). A value is the winner as MLIR text (a
// `mirage_kernel.graph` op) plus the search's JSON report.
//
// Never fatal: a file that is not SQLite, or an SQLite file without our
// `meta` table, another tool's name or another schema version, is reported
// through error() and left untouched; the cache then behaves as disabled.
// A failing read or write is likewise reported and ignored. Several
// processes may read and write one file at once (WAL journal, busy timeout
// and bounded retries); every row carries a checksum, and a row that fails
// it is a miss with the reason in error(). The checksum catches accidents,
// not intent (anyone who can write the file can recompute it): the
// superoptimize pass re-verifies every hit against the program before using
// it. docs/Rationale/ResultCache.md.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEARCH_RESULTCACHE_H
#define MIRAGE_SEARCH_RESULTCACHE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

struct sqlite3;

namespace mirage {

constexpr llvm::StringLiteral kResultCacheTool = "mirage-mlir";
/// 2: rows carry a checksum. A version-1 file of ours is upgraded (emptied).
constexpr int64_t kResultCacheSchema = 2;

struct CacheEntry {
  std::string graphText;  // the winner: a mirage_kernel.graph op as MLIR text
  std::string reportJson; // SearchReport JSON (SearchReport.h)
  int64_t createdUnix = 0; // set by store(); 0 means "now"
};

/// How a cache is chosen: the default file, an explicit path, or none.
struct CacheConfig {
  enum class Mode : uint8_t { Default, Path, Off };
  Mode mode = Mode::Default;
  std::string path; // Mode::Path
  /// Parses a pass option: "" or "default" → Default; "off", "none",
  /// "false" or "0" → Off; anything else is a path.
  static CacheConfig parse(llvm::StringRef option);
};

class ResultCache {
public:
  /// $XDG_CACHE_HOME/mirage-mlir/results.sqlite, else
  /// $HOME/.cache/mirage-mlir/results.sqlite; empty if neither is set.
  static std::string defaultPath();

  /// Opens (creating the file, its directory and schema if absent) per
  /// `config`. Never fails: check enabled() and error().
  static ResultCache open(const CacheConfig &config);
  static ResultCache open(llvm::StringRef path) {
    return open(CacheConfig{CacheConfig::Mode::Path, path.str()});
  }
  static ResultCache disabled() {
    return open(CacheConfig{CacheConfig::Mode::Off, ""});
  }

  ResultCache(ResultCache &&) noexcept;
  ResultCache &operator=(ResultCache &&) noexcept;
  ~ResultCache();

  /// Whether lookups and stores go to a file.
  bool enabled() const { return db != nullptr; }
  /// The file in use or rejected (empty when off).
  const std::string &path() const { return filePath; }
  /// Why the file was rejected at open, or the last failed operation's
  /// error; empty if none.
  const std::string &error() const { return lastError; }

  /// The entry stored under `key`, or std::nullopt on a miss, when disabled,
  /// on a read error or for an entry that fails its checksum (then error()
  /// says why).
  std::optional<CacheEntry> lookup(llvm::StringRef key);
  /// Stores (replacing) `entry` under `key`. False when disabled or on a
  /// write error (error() says why); never fatal.
  bool store(llvm::StringRef key, const CacheEntry &entry);
  /// Number of stored entries (0 when disabled).
  int64_t size();

private:
  ResultCache() = default;
  bool fail(std::string msg);
  sqlite3 *db = nullptr;
  std::string filePath;
  std::string lastError;
};

} // namespace mirage

#endif // MIRAGE_SEARCH_RESULTCACHE_H

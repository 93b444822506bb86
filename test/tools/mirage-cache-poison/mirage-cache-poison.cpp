//===- mirage-cache-poison.cpp - Rewrite result-cache entries (tests) -----===//
//
// A test tool: rewrites every entry of a result cache and stores it back
// through ResultCache::store, so its checksum is recomputed and valid. This
// is what anyone who can write the cache file can do; the superoptimizer
// must not trust what it reads (docs/Rationale/ResultCache.md).
//
//   mirage-cache-poison FILE graph|report REGEX REPLACEMENT
//       replaces every match of REGEX (ECMAScript) in the column
//   mirage-cache-poison FILE graph-from|report-from TEXTFILE
//       sets the column to TEXTFILE's contents
//   mirage-cache-poison FILE fail-stores
//       adds a trigger that aborts every write to the results table (a
//       store that fails even for root, unlike a read-only file)
//
// Exits 1 when no entry changed, so that a test notices a poison that did
// not apply.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Search/ResultCache.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <sqlite3.h>

#include <regex>
#include <string>
#include <vector>

using namespace mirage;

static int usage() {
  llvm::errs() << "usage: mirage-cache-poison FILE (graph|report) REGEX "
                  "REPLACEMENT\n"
                  "       mirage-cache-poison FILE (graph-from|report-from) "
                  "TEXTFILE\n"
                  "       mirage-cache-poison FILE fail-stores\n";
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return usage();
  std::string file = argv[1], what = argv[2];

  sqlite3 *db = nullptr;
  if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) !=
      SQLITE_OK) {
    llvm::errs() << "mirage-cache-poison: cannot open '" << file << "'\n";
    return 2;
  }
  if (what == "fail-stores") {
    char *msg = nullptr;
    int rc = sqlite3_exec(
        db,
        "CREATE TRIGGER fail_insert BEFORE INSERT ON results BEGIN "
        "SELECT RAISE(ABORT, 'database or disk is full (test trigger)'); END;"
        "CREATE TRIGGER fail_update BEFORE UPDATE ON results BEGIN "
        "SELECT RAISE(ABORT, 'database or disk is full (test trigger)'); END;",
        nullptr, nullptr, &msg);
    if (rc != SQLITE_OK)
      llvm::errs() << "mirage-cache-poison: " << (msg ? msg : "failed") << "\n";
    sqlite3_free(msg);
    sqlite3_close_v2(db);
    return rc == SQLITE_OK ? 0 : 1;
  }
  std::vector<std::string> keys;
  sqlite3_stmt *st = nullptr;
  sqlite3_prepare_v2(db, "SELECT key FROM results", -1, &st, nullptr);
  while (st && sqlite3_step(st) == SQLITE_ROW)
    keys.emplace_back(reinterpret_cast<const char *>(sqlite3_column_text(st, 0)));
  sqlite3_finalize(st);
  sqlite3_close_v2(db);

  bool isGraph = what == "graph" || what == "graph-from";
  bool fromFile = what == "graph-from" || what == "report-from";
  if (!isGraph && what != "report" && what != "report-from")
    return usage();
  if (argc != (fromFile ? 4 : 5))
    return usage();
  std::string replacement;
  if (fromFile) {
    auto buf = llvm::MemoryBuffer::getFile(argv[3]);
    if (!buf) {
      llvm::errs() << "mirage-cache-poison: cannot read '" << argv[3] << "'\n";
      return 2;
    }
    replacement = (*buf)->getBuffer().str();
  }

  ResultCache cache = ResultCache::open(file);
  if (!cache.enabled()) {
    llvm::errs() << "mirage-cache-poison: " << cache.error() << "\n";
    return 2;
  }
  unsigned changed = 0;
  for (const std::string &key : keys) {
    std::optional<CacheEntry> e = cache.lookup(key);
    if (!e)
      continue;
    std::string &col = isGraph ? e->graphText : e->reportJson;
    std::string next =
        fromFile ? replacement
                 : std::regex_replace(col, std::regex(argv[3]), argv[4]);
    if (next == col)
      continue;
    col = next;
    if (!cache.store(key, *e)) {
      llvm::errs() << "mirage-cache-poison: " << cache.error() << "\n";
      return 2;
    }
    ++changed;
  }
  llvm::outs() << "rewrote " << changed << " entr" << (changed == 1 ? "y" : "ies")
               << "\n";
  return changed ? 0 : 1;
}

//===- ResultCache.cpp - Embedded SQLite cache of search results ----------===//
#include "Mirage/Search/ResultCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <sqlite3.h>

#include <chrono>
#include <cstring>

using namespace mirage;

CacheConfig CacheConfig::parse(llvm::StringRef option) {
  llvm::StringRef o = option.trim();
  std::string lower = o.lower();
  if (o.empty() || lower == "default")
    return CacheConfig{Mode::Default, ""};
  if (lower == "off" || lower == "none" || lower == "false" || lower == "0")
    return CacheConfig{Mode::Off, ""};
  return CacheConfig{Mode::Path, o.str()};
}

std::string ResultCache::defaultPath() {
  llvm::SmallString<256> p;
  if (std::optional<std::string> xdg = llvm::sys::Process::GetEnv("XDG_CACHE_HOME");
      xdg && !xdg->empty() && llvm::sys::path::is_absolute(*xdg)) {
    p = *xdg;
  } else if (std::optional<std::string> home =
                 llvm::sys::Process::GetEnv("HOME");
             home && !home->empty()) {
    p = *home;
    llvm::sys::path::append(p, ".cache");
  } else {
    return "";
  }
  llvm::sys::path::append(p, "mirage-mlir", "results.sqlite");
  return std::string(p);
}

ResultCache::ResultCache(ResultCache &&o) noexcept
    : db(o.db), filePath(std::move(o.filePath)),
      lastError(std::move(o.lastError)) {
  o.db = nullptr;
}

ResultCache &ResultCache::operator=(ResultCache &&o) noexcept {
  if (this != &o) {
    if (db)
      sqlite3_close_v2(db);
    db = o.db;
    o.db = nullptr;
    filePath = std::move(o.filePath);
    lastError = std::move(o.lastError);
  }
  return *this;
}

ResultCache::~ResultCache() {
  if (db)
    sqlite3_close_v2(db);
}

bool ResultCache::fail(std::string msg) {
  lastError = "result cache '" + filePath + "': " + msg;
  return false;
}

namespace {
/// A prepared statement, finalized on scope exit.
struct Stmt {
  sqlite3_stmt *s = nullptr;
  ~Stmt() { sqlite3_finalize(s); }
};

int exec(sqlite3 *db, const char *sql, std::string &err) {
  char *msg = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &msg);
  if (rc != SQLITE_OK)
    err = msg ? msg : sqlite3_errstr(rc);
  sqlite3_free(msg);
  return rc;
}

/// Counts the tables of the database; -1 on error (not a database).
int64_t countTables(sqlite3 *db, std::string &err) {
  Stmt st;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE type='table'",
                         -1, &st.s, nullptr) != SQLITE_OK ||
      sqlite3_step(st.s) != SQLITE_ROW) {
    err = sqlite3_errmsg(db);
    return -1;
  }
  return sqlite3_column_int64(st.s, 0);
}

bool hasTable(sqlite3 *db, const char *name) {
  Stmt st;
  if (sqlite3_prepare_v2(db,
                         "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?",
                         -1, &st.s, nullptr) != SQLITE_OK)
    return false;
  sqlite3_bind_text(st.s, 1, name, -1, SQLITE_STATIC);
  return sqlite3_step(st.s) == SQLITE_ROW;
}

std::optional<std::string> metaValue(sqlite3 *db, const char *key) {
  Stmt st;
  if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key=?", -1, &st.s,
                         nullptr) != SQLITE_OK)
    return std::nullopt;
  sqlite3_bind_text(st.s, 1, key, -1, SQLITE_STATIC);
  if (sqlite3_step(st.s) != SQLITE_ROW)
    return std::nullopt;
  const unsigned char *t = sqlite3_column_text(st.s, 0);
  return t ? std::string(reinterpret_cast<const char *>(t)) : std::string();
}

constexpr const char *kCreateSchema =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE results(key TEXT PRIMARY KEY, graph TEXT NOT NULL,"
    " report TEXT NOT NULL, created INTEGER NOT NULL);";
} // namespace

ResultCache ResultCache::open(const CacheConfig &config) {
  ResultCache c;
  switch (config.mode) {
  case CacheConfig::Mode::Off:
    return c;
  case CacheConfig::Mode::Default:
    c.filePath = defaultPath();
    if (c.filePath.empty()) {
      c.lastError = "result cache: no cache directory ($XDG_CACHE_HOME and "
                    "$HOME are unset); caching disabled";
      return c;
    }
    break;
  case CacheConfig::Mode::Path:
    c.filePath = config.path;
    if (c.filePath.empty()) {
      c.lastError = "result cache: empty path; caching disabled";
      return c;
    }
    break;
  }

  llvm::StringRef parent = llvm::sys::path::parent_path(c.filePath);
  if (!parent.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(parent)) {
      c.fail("cannot create directory '" + parent.str() + "': " +
             ec.message() + "; caching disabled");
      return c;
    }

  // Look at the header before SQLite touches the file: a non-empty file
  // that is not an SQLite database is someone else's and stays untouched.
  uint64_t fileSize = 0;
  if (!llvm::sys::fs::file_size(c.filePath, fileSize) && fileSize > 0) {
    auto buf = llvm::MemoryBuffer::getFileSlice(c.filePath, 16, 0);
    static const char kMagic[16] = "SQLite format 3"; // + NUL
    if (!buf || (*buf)->getBufferSize() < 16 ||
        std::memcmp((*buf)->getBufferStart(), kMagic, 16) != 0) {
      c.fail("not an SQLite database; ignored (caching disabled)");
      return c;
    }
  }

  sqlite3 *db = nullptr;
  int rc = sqlite3_open_v2(c.filePath.c_str(), &db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                               SQLITE_OPEN_FULLMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    c.fail(std::string("cannot open: ") +
           (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)) +
           "; caching disabled");
    sqlite3_close_v2(db);
    return c;
  }
  sqlite3_busy_timeout(db, 10000);
  auto reject = [&](const std::string &why) {
    sqlite3_close_v2(db);
    c.fail(why + "; ignored (caching disabled)");
    return std::move(c);
  };

  std::string err;
  int64_t tables = countTables(db, err);
  if (tables < 0)
    return reject("not a valid SQLite database (" + err + ")");
  if (tables == 0) {
    // A new file: create the schema, unless a concurrent process did.
    if (exec(db, "BEGIN IMMEDIATE", err) != SQLITE_OK)
      return reject("cannot initialise (" + err + ")");
    bool ok = true;
    if (countTables(db, err) == 0) {
      std::string init = std::string(kCreateSchema) +
                         "INSERT INTO meta VALUES('tool','" +
                         kResultCacheTool.str() +
                         "');INSERT INTO meta VALUES('schema_version','" +
                         std::to_string(kResultCacheSchema) + "');";
      ok = exec(db, init.c_str(), err) == SQLITE_OK;
    }
    if (!ok) {
      std::string ignored;
      exec(db, "ROLLBACK", ignored);
      return reject("cannot initialise (" + err + ")");
    }
    if (exec(db, "COMMIT", err) != SQLITE_OK)
      return reject("cannot initialise (" + err + ")");
  }

  if (!hasTable(db, "meta"))
    return reject("not a " + kResultCacheTool.str() +
                  " result cache (no 'meta' table)");
  std::optional<std::string> tool = metaValue(db, "tool");
  if (!tool || *tool != kResultCacheTool)
    return reject("belongs to tool '" + tool.value_or("<none>") + "', not '" +
                  kResultCacheTool.str() + "'");
  std::optional<std::string> version = metaValue(db, "schema_version");
  if (!version || *version != std::to_string(kResultCacheSchema))
    return reject("schema version '" + version.value_or("<none>") +
                  "', this build uses " + std::to_string(kResultCacheSchema));
  if (!hasTable(db, "results"))
    return reject("no 'results' table");

  // Readers alongside a writer; best effort (fails harmlessly on some file
  // systems, and then the rollback journal with the busy timeout serves).
  exec(db, "PRAGMA journal_mode=WAL", err);
  c.db = db;
  return c;
}

std::optional<CacheEntry> ResultCache::lookup(llvm::StringRef key) {
  if (!db)
    return std::nullopt;
  Stmt st;
  if (sqlite3_prepare_v2(db,
                         "SELECT graph, report, created FROM results WHERE key=?",
                         -1, &st.s, nullptr) != SQLITE_OK) {
    fail(std::string("lookup failed: ") + sqlite3_errmsg(db));
    return std::nullopt;
  }
  sqlite3_bind_text(st.s, 1, key.data(), static_cast<int>(key.size()),
                    SQLITE_TRANSIENT);
  int rc = sqlite3_step(st.s);
  if (rc == SQLITE_DONE)
    return std::nullopt;
  if (rc != SQLITE_ROW) {
    fail(std::string("lookup failed: ") + sqlite3_errmsg(db));
    return std::nullopt;
  }
  auto text = [&](int col) {
    const unsigned char *t = sqlite3_column_text(st.s, col);
    int n = sqlite3_column_bytes(st.s, col);
    return t ? std::string(reinterpret_cast<const char *>(t), n)
             : std::string();
  };
  CacheEntry e;
  e.graphText = text(0);
  e.reportJson = text(1);
  e.createdUnix = sqlite3_column_int64(st.s, 2);
  return e;
}

bool ResultCache::store(llvm::StringRef key, const CacheEntry &entry) {
  if (!db)
    return false;
  Stmt st;
  if (sqlite3_prepare_v2(db,
                         "INSERT OR REPLACE INTO results(key, graph, report, "
                         "created) VALUES(?, ?, ?, ?)",
                         -1, &st.s, nullptr) != SQLITE_OK)
    return fail(std::string("store failed: ") + sqlite3_errmsg(db));
  int64_t created = entry.createdUnix;
  if (created == 0)
    created = std::chrono::duration_cast<std::chrono::seconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
  sqlite3_bind_text(st.s, 1, key.data(), static_cast<int>(key.size()),
                    SQLITE_TRANSIENT);
  sqlite3_bind_text(st.s, 2, entry.graphText.data(),
                    static_cast<int>(entry.graphText.size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(st.s, 3, entry.reportJson.data(),
                    static_cast<int>(entry.reportJson.size()),
                    SQLITE_TRANSIENT);
  sqlite3_bind_int64(st.s, 4, created);
  if (sqlite3_step(st.s) != SQLITE_DONE)
    return fail(std::string("store failed: ") + sqlite3_errmsg(db));
  return true;
}

int64_t ResultCache::size() {
  if (!db)
    return 0;
  Stmt st;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM results", -1, &st.s,
                         nullptr) != SQLITE_OK ||
      sqlite3_step(st.s) != SQLITE_ROW) {
    fail(std::string("count failed: ") + sqlite3_errmsg(db));
    return 0;
  }
  return sqlite3_column_int64(st.s, 0);
}

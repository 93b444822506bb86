//===- ResultCache.cpp - Embedded SQLite cache of search results ----------===//
#include "Mirage/Search/ResultCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/xxhash.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <thread>

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

/// How long SQLite's own busy handler waits for a lock held by another
/// process before it gives up on one attempt.
constexpr int kBusyTimeoutMs = 5000;
/// How long, in all, a statement keeps retrying a locked database before its
/// failure is reported (and the cache treated as a miss or a lost store).
constexpr std::chrono::seconds kLockPatience(60);

bool isLockContention(int rc) {
  int primary = rc & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

/// Retries `attempt` while it reports lock contention that SQLite's busy
/// handler did not absorb (it is not called for every kind of SQLITE_BUSY,
/// e.g. WAL recovery or a read snapshot that went stale), with jittered
/// exponential backoff, for at most kLockPatience in all.
template <typename Fn>
int retryOnContention(Fn attempt) {
  auto deadline = std::chrono::steady_clock::now() + kLockPatience;
  std::chrono::microseconds wait(1000);
  thread_local std::minstd_rand jitter(std::random_device{}());
  for (;;) {
    int rc = attempt();
    if (!isLockContention(rc) || std::chrono::steady_clock::now() > deadline)
      return rc;
    std::this_thread::sleep_for(wait + std::chrono::microseconds(
                                           jitter() % (wait.count() + 1)));
    wait = std::min<std::chrono::microseconds>(wait * 2,
                                               std::chrono::milliseconds(100));
  }
}

/// One attempt of `sql` (the busy handler still waits kBusyTimeoutMs).
int execOnce(sqlite3 *db, const char *sql, std::string &err) {
  char *msg = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &msg);
  if (rc != SQLITE_OK)
    err = msg ? msg : sqlite3_errstr(rc);
  sqlite3_free(msg);
  return rc;
}

int exec(sqlite3 *db, const char *sql, std::string &err) {
  return retryOnContention([&] { return execOnce(db, sql, err); });
}

/// sqlite3_step with retries on contention (the bindings survive a reset).
int step(sqlite3_stmt *st) {
  return retryOnContention([&] {
    int rc = sqlite3_step(st);
    if (isLockContention(rc))
      sqlite3_reset(st);
    return rc;
  });
}

int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st) {
  return retryOnContention(
      [&] { return sqlite3_prepare_v2(db, sql, -1, st, nullptr); });
}

/// The checksum of one row: xxh3 over its fields, each length-prefixed so
/// that bytes cannot move from one field to the next unnoticed.
int64_t entryChecksum(llvm::StringRef key, llvm::StringRef graph,
                      llvm::StringRef report, int64_t created) {
  std::string buf;
  auto field = [&](llvm::StringRef f) {
    buf += std::to_string(f.size());
    buf += ':';
    buf += f.str();
  };
  field(key);
  field(graph);
  field(report);
  field(std::to_string(created));
  return static_cast<int64_t>(llvm::xxh3_64bits(llvm::StringRef(buf)));
}

/// Counts the tables of the database; -1 on error (not a database).
int64_t countTables(sqlite3 *db, std::string &err) {
  Stmt st;
  if (prepare(db, "SELECT count(*) FROM sqlite_master WHERE type='table'",
              &st.s) != SQLITE_OK ||
      step(st.s) != SQLITE_ROW) {
    err = sqlite3_errmsg(db);
    return -1;
  }
  return sqlite3_column_int64(st.s, 0);
}

bool hasTable(sqlite3 *db, const char *name) {
  Stmt st;
  if (prepare(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?",
              &st.s) != SQLITE_OK)
    return false;
  sqlite3_bind_text(st.s, 1, name, -1, SQLITE_STATIC);
  return step(st.s) == SQLITE_ROW;
}

std::optional<std::string> metaValue(sqlite3 *db, const char *key) {
  Stmt st;
  if (prepare(db, "SELECT value FROM meta WHERE key=?", &st.s) != SQLITE_OK)
    return std::nullopt;
  sqlite3_bind_text(st.s, 1, key, -1, SQLITE_STATIC);
  if (step(st.s) != SQLITE_ROW)
    return std::nullopt;
  const unsigned char *t = sqlite3_column_text(st.s, 0);
  return t ? std::string(reinterpret_cast<const char *>(t)) : std::string();
}

constexpr const char *kCreateMeta =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);";
constexpr const char *kCreateResults =
    "CREATE TABLE results(key TEXT PRIMARY KEY, graph TEXT NOT NULL,"
    " report TEXT NOT NULL, created INTEGER NOT NULL,"
    " checksum INTEGER NOT NULL);";

/// Whether the file's first 16 bytes are SQLite's magic. A file that another
/// process is creating this instant may still show a short or zero header,
/// so a mismatch is looked at again a few times before it counts.
bool hasSQLiteHeader(const std::string &path) {
  static const char kMagic[16] = "SQLite format 3"; // + NUL
  for (int attempt = 0;; ++attempt) {
    auto buf = llvm::MemoryBuffer::getFileSlice(path, 16, 0);
    if (buf && (*buf)->getBufferSize() >= 16 &&
        std::memcmp((*buf)->getBufferStart(), kMagic, 16) == 0)
      return true;
    if (attempt == 4)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20 << attempt));
  }
}
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
  if (!llvm::sys::fs::file_size(c.filePath, fileSize) && fileSize > 0 &&
      !hasSQLiteHeader(c.filePath)) {
    c.fail("not an SQLite database; ignored (caching disabled)");
    return c;
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
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
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
    // A new file. WAL first, while it is still empty: the journal mode is
    // stored in the file, and readers alongside a writer need it. Best
    // effort: some file systems cannot do WAL, and then the rollback
    // journal with the busy timeout and retries serves.
    std::string ignored;
    execOnce(db, "PRAGMA journal_mode=WAL", ignored);
    // Create the schema, unless a concurrent process did meanwhile.
    if (exec(db, "BEGIN IMMEDIATE", err) != SQLITE_OK)
      return reject("cannot initialise (" + err + ")");
    bool ok = true;
    if (countTables(db, err) == 0) {
      std::string init = std::string(kCreateMeta) + kCreateResults +
                         "INSERT INTO meta VALUES('tool','" +
                         kResultCacheTool.str() +
                         "');INSERT INTO meta VALUES('schema_version','" +
                         std::to_string(kResultCacheSchema) + "');";
      ok = exec(db, init.c_str(), err) == SQLITE_OK;
    }
    if (!ok) {
      exec(db, "ROLLBACK", ignored);
      return reject("cannot initialise (" + err + ")");
    }
    if (exec(db, "COMMIT", err) != SQLITE_OK) {
      exec(db, "ROLLBACK", ignored);
      return reject("cannot initialise (" + err + ")");
    }
  }

  if (!hasTable(db, "meta"))
    return reject("not a " + kResultCacheTool.str() +
                  " result cache (no 'meta' table)");
  std::optional<std::string> tool = metaValue(db, "tool");
  if (!tool || *tool != kResultCacheTool)
    return reject("belongs to tool '" + tool.value_or("<none>") + "', not '" +
                  kResultCacheTool.str() + "'");
  std::optional<std::string> version = metaValue(db, "schema_version");
  if (version && *version == "1") {
    // Ours, from before entries had checksums: they cannot be checked, and a
    // cache may always be emptied, so upgrade by starting afresh. Under the
    // write lock, re-read the version: another process may have upgraded.
    std::string ignored;
    if (exec(db, "BEGIN IMMEDIATE", err) != SQLITE_OK)
      return reject("cannot upgrade schema version 1 (" + err + ")");
    bool ok = true;
    if (metaValue(db, "schema_version").value_or("") == "1") {
      std::string upgrade =
          std::string("DROP TABLE IF EXISTS results;") + kCreateResults +
          "UPDATE meta SET value='" + std::to_string(kResultCacheSchema) +
          "' WHERE key='schema_version';";
      ok = exec(db, upgrade.c_str(), err) == SQLITE_OK;
    }
    if (!ok || exec(db, "COMMIT", err) != SQLITE_OK) {
      exec(db, "ROLLBACK", ignored);
      return reject("cannot upgrade schema version 1 (" + err + ")");
    }
    version = metaValue(db, "schema_version");
  }
  if (!version || *version != std::to_string(kResultCacheSchema))
    return reject("schema version '" + version.value_or("<none>") +
                  "', this build uses " + std::to_string(kResultCacheSchema));
  if (!hasTable(db, "results"))
    return reject("no 'results' table");

  // An existing file made under the rollback journal (or by an older build)
  // moves to WAL too; best effort as above.
  std::string ignored;
  execOnce(db, "PRAGMA journal_mode=WAL", ignored);
  c.db = db;
  return c;
}

std::optional<CacheEntry> ResultCache::lookup(llvm::StringRef key) {
  if (!db)
    return std::nullopt;
  Stmt st;
  if (prepare(db,
              "SELECT graph, report, created, checksum FROM results WHERE key=?",
              &st.s) != SQLITE_OK) {
    fail(std::string("lookup failed: ") + sqlite3_errmsg(db));
    return std::nullopt;
  }
  sqlite3_bind_text(st.s, 1, key.data(), static_cast<int>(key.size()),
                    SQLITE_TRANSIENT);
  int rc = step(st.s);
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
  int64_t checksum = sqlite3_column_int64(st.s, 3);
  if (checksum != entryChecksum(key, e.graphText, e.reportJson, e.createdUnix)) {
    fail("entry '" + key.str() +
         "' fails its checksum (damaged); treated as a miss");
    return std::nullopt;
  }
  return e;
}

bool ResultCache::store(llvm::StringRef key, const CacheEntry &entry) {
  if (!db)
    return false;
  Stmt st;
  if (prepare(db,
              "INSERT OR REPLACE INTO results(key, graph, report, created, "
              "checksum) VALUES(?, ?, ?, ?, ?)",
              &st.s) != SQLITE_OK)
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
  sqlite3_bind_int64(st.s, 5,
                     entryChecksum(key, entry.graphText, entry.reportJson,
                                   created));
  if (step(st.s) != SQLITE_DONE)
    return fail(std::string("store failed: ") + sqlite3_errmsg(db));
  return true;
}

int64_t ResultCache::size() {
  if (!db)
    return 0;
  Stmt st;
  if (prepare(db, "SELECT count(*) FROM results", &st.s) != SQLITE_OK ||
      step(st.s) != SQLITE_ROW) {
    fail(std::string("count failed: ") + sqlite3_errmsg(db));
    return 0;
  }
  return sqlite3_column_int64(st.s, 0);
}

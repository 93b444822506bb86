//===- ResultCacheTest.cpp - The SQLite result cache ----------------------===//
#include "Mirage/Search/ResultCache.h"
#include "Mirage/Search/CanonicalHash.h"
#include "Mirage/Search/SearchReport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "TestGraphs.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

using namespace mirage;

namespace {
/// A fresh temporary directory, removed with its contents at scope exit.
struct TempDir {
  llvm::SmallString<128> path;
  TempDir() {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("mirage-cache-test", path));
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> p(path);
    llvm::sys::path::append(p, name);
    return std::string(p);
  }
};

void writeFile(const std::string &path, llvm::StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  ASSERT_FALSE(ec);
  os << bytes;
}

std::string readFile(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  return buf ? (*buf)->getBuffer().str() : std::string();
}

const char *kKey = "00112233445566778899aabbccddeeff";
} // namespace

TEST(ResultCache, MissPutHit) {
  TempDir dir;
  std::string path = dir.file("sub/dir/results.sqlite"); // dirs created
  ResultCache c = ResultCache::open(path);
  ASSERT_TRUE(c.enabled()) << c.error();
  EXPECT_TRUE(c.error().empty());
  EXPECT_EQ(c.path(), path);
  EXPECT_FALSE(c.lookup(kKey).has_value()); // miss
  EXPECT_EQ(c.size(), 0);
  CacheEntry e{"mirage_kernel.graph ...", R"({"schema": 1})", 0};
  ASSERT_TRUE(c.store(kKey, e)) << c.error();
  std::optional<CacheEntry> hit = c.lookup(kKey);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->graphText, e.graphText);
  EXPECT_EQ(hit->reportJson, e.reportJson);
  EXPECT_GT(hit->createdUnix, 0);
  EXPECT_FALSE(c.lookup("ffffffffffffffffffffffffffffffff").has_value());
  // Replacing an entry.
  e.graphText = "another";
  ASSERT_TRUE(c.store(kKey, e));
  EXPECT_EQ(c.lookup(kKey)->graphText, "another");
  EXPECT_EQ(c.size(), 1);
}

TEST(ResultCache, PersistsAcrossOpens) {
  TempDir dir;
  std::string path = dir.file("results.sqlite");
  {
    ResultCache c = ResultCache::open(path);
    ASSERT_TRUE(c.store(kKey, {"g", "r", 42}));
  }
  ResultCache c = ResultCache::open(path);
  ASSERT_TRUE(c.enabled()) << c.error();
  auto hit = c.lookup(kKey);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->graphText, "g");
  EXPECT_EQ(hit->createdUnix, 42);
}

TEST(ResultCache, CorruptFileReportedAndUntouched) {
  TempDir dir;
  std::string path = dir.file("garbage.sqlite");
  std::string garbage;
  for (int i = 0; i < 4096; ++i)
    garbage.push_back(static_cast<char>((i * 131 + 7) & 0xff));
  writeFile(path, garbage);
  ResultCache c = ResultCache::open(path);
  EXPECT_FALSE(c.enabled());
  EXPECT_NE(c.error().find("not an SQLite database"), std::string::npos)
      << c.error();
  EXPECT_FALSE(c.lookup(kKey).has_value());
  EXPECT_FALSE(c.store(kKey, {"g", "r", 0}));
  EXPECT_EQ(readFile(path), garbage); // never modified
}

TEST(ResultCache, CorruptSQLiteBodyReported) {
  // The SQLite magic followed by garbage: SQLite itself rejects it.
  TempDir dir;
  std::string path = dir.file("bad.sqlite");
  std::string bytes("SQLite format 3\0", 16);
  bytes += std::string(4080, '\x5a');
  writeFile(path, bytes);
  ResultCache c = ResultCache::open(path);
  EXPECT_FALSE(c.enabled());
  EXPECT_FALSE(c.error().empty());
  EXPECT_FALSE(c.lookup(kKey).has_value());
}

static void makeDb(const std::string &path, const char *sql) {
  sqlite3 *db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

TEST(ResultCache, ForeignSchemaReported) {
  TempDir dir;
  std::string noMeta = dir.file("other.sqlite");
  makeDb(noMeta, "CREATE TABLE photos(id INTEGER, data BLOB);"
                 "INSERT INTO photos VALUES(1, x'00ff');");
  ResultCache a = ResultCache::open(noMeta);
  EXPECT_FALSE(a.enabled());
  EXPECT_NE(a.error().find("no 'meta' table"), std::string::npos) << a.error();

  std::string otherTool = dir.file("tool.sqlite");
  makeDb(otherTool, "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
                    "INSERT INTO meta VALUES('tool','someone-else');"
                    "INSERT INTO meta VALUES('schema_version','1');");
  ResultCache b = ResultCache::open(otherTool);
  EXPECT_FALSE(b.enabled());
  EXPECT_NE(b.error().find("someone-else"), std::string::npos) << b.error();

  std::string newer = dir.file("newer.sqlite");
  makeDb(newer, "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
                "INSERT INTO meta VALUES('tool','mirage-mlir');"
                "INSERT INTO meta VALUES('schema_version','999');"
                "CREATE TABLE results(key TEXT PRIMARY KEY, graph TEXT,"
                " report TEXT, created INTEGER);");
  ResultCache c = ResultCache::open(newer);
  EXPECT_FALSE(c.enabled());
  EXPECT_NE(c.error().find("schema version '999'"), std::string::npos)
      << c.error();
  EXPECT_FALSE(c.store(kKey, {"g", "r", 0}));

  // Nothing of ours was written into the foreign database.
  sqlite3 *db = nullptr;
  ASSERT_EQ(sqlite3_open(noMeta.c_str(), &db), SQLITE_OK);
  sqlite3_stmt *st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1,
                               &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), 1);
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST(ResultCache, Disabled) {
  ResultCache c = ResultCache::disabled();
  EXPECT_FALSE(c.enabled());
  EXPECT_TRUE(c.error().empty());
  EXPECT_FALSE(c.lookup(kKey).has_value());
  EXPECT_FALSE(c.store(kKey, {"g", "r", 0}));
  EXPECT_EQ(c.size(), 0);
  ResultCache d = ResultCache::open(CacheConfig::parse("off"));
  EXPECT_FALSE(d.enabled());
}

TEST(ResultCache, ConfigParsing) {
  EXPECT_EQ(CacheConfig::parse("").mode, CacheConfig::Mode::Default);
  EXPECT_EQ(CacheConfig::parse("default").mode, CacheConfig::Mode::Default);
  for (const char *off : {"off", "OFF", "none", "false", "0"})
    EXPECT_EQ(CacheConfig::parse(off).mode, CacheConfig::Mode::Off) << off;
  CacheConfig p = CacheConfig::parse("/tmp/x.sqlite");
  EXPECT_EQ(p.mode, CacheConfig::Mode::Path);
  EXPECT_EQ(p.path, "/tmp/x.sqlite");
}

TEST(ResultCache, DefaultPathFromEnvironment) {
  TempDir dir;
  const char *oldXdg = std::getenv("XDG_CACHE_HOME");
  std::string saved = oldXdg ? oldXdg : "";
  setenv("XDG_CACHE_HOME", dir.path.c_str(), 1);
  EXPECT_EQ(ResultCache::defaultPath(),
            dir.file("mirage-mlir/results.sqlite"));
  ResultCache c = ResultCache::open(CacheConfig());
  EXPECT_TRUE(c.enabled()) << c.error();
  EXPECT_TRUE(llvm::sys::fs::exists(dir.file("mirage-mlir/results.sqlite")));
  unsetenv("XDG_CACHE_HOME");
  const char *home = std::getenv("HOME");
  if (home && *home) {
    EXPECT_EQ(ResultCache::defaultPath(),
              std::string(home) + "/.cache/mirage-mlir/results.sqlite");
  }
  if (oldXdg)
    setenv("XDG_CACHE_HOME", saved.c_str(), 1);
}

TEST(ResultCache, ConcurrentHandles) {
  TempDir dir;
  std::string path = dir.file("shared.sqlite");
  ResultCache writer = ResultCache::open(path);
  ASSERT_TRUE(writer.enabled()) << writer.error();
  ASSERT_TRUE(writer.store(kKey, {"g0", "r0", 0}));
  constexpr int kThreads = 4, kOps = 25;
  std::vector<std::thread> threads;
  std::vector<int> hits(kThreads, 0), errors(kThreads, 0);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      ResultCache c = ResultCache::open(path); // one handle per thread
      if (!c.enabled()) {
        errors[t] = 1000;
        return;
      }
      for (int i = 0; i < kOps; ++i) {
        if (c.lookup(kKey))
          ++hits[t];
        std::string key = Hash128{static_cast<uint64_t>(t),
                                  static_cast<uint64_t>(i)}
                              .toHex();
        if (!c.store(key, {"g", "r", 0}))
          ++errors[t];
      }
    });
  for (std::thread &th : threads)
    th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(errors[t], 0) << "thread " << t;
    EXPECT_EQ(hits[t], kOps) << "thread " << t;
  }
  EXPECT_EQ(writer.size(), 1 + kThreads * kOps);
}

namespace {
std::string processKey(int proc, int i) {
  return Hash128{static_cast<uint64_t>(proc) + 1000, static_cast<uint64_t>(i)}
      .toHex();
}
std::string processGraph(int proc, int i) {
  // Long enough to span several database pages now and then.
  return "graph of process " + std::to_string(proc) + " entry " +
         std::to_string(i) + std::string(static_cast<size_t>(i * 97), 'x');
}
} // namespace

// Several processes (not threads: SQLite's locks between processes are file
// locks, which threads of one process do not exercise) open one fresh file
// at the same instant, so they also race to create the schema, then each
// stores its own entries and all keep rewriting one shared key. Nothing may
// be lost, every entry must read back intact, and no process may see an
// error.
TEST(ResultCache, ManyWriterProcesses) {
  TempDir dir;
  std::string path = dir.file("shared.sqlite");
  constexpr int kProcs = 6, kEntries = 60;
  const std::string shared = "shared-key";
  auto start = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  std::vector<pid_t> children;
  for (int p = 0; p < kProcs; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      std::this_thread::sleep_until(start); // CLOCK_MONOTONIC: shared
      int failures = 0;
      ResultCache c = ResultCache::open(path);
      if (!c.enabled())
        _exit(100);
      for (int i = 0; i < kEntries; ++i) {
        std::string key = processKey(p, i);
        if (!c.store(key, {processGraph(p, i), "{}", 0}))
          ++failures;
        if (!c.store(shared, {"from " + std::to_string(p), "{}", 0}))
          ++failures;
        std::optional<CacheEntry> back = c.lookup(key);
        if (!back || back->graphText != processGraph(p, i))
          ++failures;
        // The shared entry is always some process's whole entry.
        std::optional<CacheEntry> s = c.lookup(shared);
        if (!s || s->graphText.rfind("from ", 0) != 0)
          ++failures;
      }
      if (!c.error().empty())
        ++failures;
      _exit(std::min(failures, 99));
    }
    children.push_back(pid);
  }
  for (size_t p = 0; p < children.size(); ++p) {
    int status = 0;
    ASSERT_EQ(waitpid(children[p], &status, 0), children[p]);
    ASSERT_TRUE(WIFEXITED(status)) << "process " << p << " died";
    EXPECT_EQ(WEXITSTATUS(status), 0) << "process " << p
                                      << " (100: could not open the cache)";
  }
  ResultCache c = ResultCache::open(path);
  ASSERT_TRUE(c.enabled()) << c.error();
  EXPECT_EQ(c.size(), kProcs * kEntries + 1);
  for (int p = 0; p < kProcs; ++p)
    for (int i = 0; i < kEntries; ++i) {
      std::optional<CacheEntry> e = c.lookup(processKey(p, i));
      ASSERT_TRUE(e.has_value()) << p << "/" << i << ": " << c.error();
      EXPECT_EQ(e->graphText, processGraph(p, i));
    }
  EXPECT_TRUE(c.lookup(shared).has_value());
  EXPECT_TRUE(c.error().empty()) << c.error();
}

static void execSql(const std::string &path, const std::string &sql) {
  sqlite3 *db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char *msg = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg), SQLITE_OK)
      << (msg ? msg : "");
  sqlite3_free(msg);
  sqlite3_close(db);
}

// A row damaged behind SQLite's back (here: rewritten by another program
// without a matching checksum, as a torn copy or a disk error would leave
// it) is never served: it is a miss with a checksum error, and the next
// store repairs it.
TEST(ResultCache, CorruptEntryIsAMiss) {
  TempDir dir;
  std::string path = dir.file("results.sqlite");
  {
    ResultCache c = ResultCache::open(path);
    ASSERT_TRUE(c.store(kKey, {"graph text", "{}", 7})) << c.error();
    ASSERT_TRUE(c.store("other", {"fine", "{}", 7})) << c.error();
  }
  for (const char *damage :
       {"UPDATE results SET graph='graph tex' WHERE key='%k'",
        "UPDATE results SET report='{} ' WHERE key='%k'",
        "UPDATE results SET created=8 WHERE key='%k'",
        "UPDATE results SET checksum=checksum+1 WHERE key='%k'"}) {
    {
      ResultCache c = ResultCache::open(path);
      ASSERT_TRUE(c.store(kKey, {"graph text", "{}", 7})) << c.error();
    }
    std::string sql = damage;
    sql.replace(sql.find("%k"), 2, kKey);
    execSql(path, sql);
    ResultCache c = ResultCache::open(path);
    ASSERT_TRUE(c.enabled()) << c.error();
    EXPECT_FALSE(c.lookup(kKey).has_value()) << damage;
    EXPECT_NE(c.error().find("fails its checksum"), std::string::npos)
        << damage << ": " << c.error();
    // Other entries are unaffected; a store replaces the damaged one.
    EXPECT_EQ(c.lookup("other")->graphText, "fine");
    ASSERT_TRUE(c.store(kKey, {"graph text", "{}", 7}));
    EXPECT_EQ(c.lookup(kKey)->graphText, "graph text");
  }
}

// A store that fails (here a trigger aborts every insert, as a full disk
// would; root ignores file permissions) returns false and error() names the
// file and SQLite's reason, for the pass's warning.
TEST(ResultCache, FailedStoreSaysWhy) {
  TempDir dir;
  std::string path = dir.file("results.sqlite");
  {
    ResultCache c = ResultCache::open(path);
    ASSERT_TRUE(c.store(kKey, {"graph text", "{}", 7})) << c.error();
  }
  execSql(path, "CREATE TRIGGER full BEFORE INSERT ON results BEGIN "
                "SELECT RAISE(ABORT, 'disk is full'); END;");
  ResultCache c = ResultCache::open(path);
  ASSERT_TRUE(c.enabled()) << c.error();
  EXPECT_FALSE(c.store("other", {"fine", "{}", 7}));
  EXPECT_NE(c.error().find("result cache '" + path + "': store failed"),
            std::string::npos)
      << c.error();
  EXPECT_NE(c.error().find("disk is full"), std::string::npos) << c.error();
  // What was stored before is still there.
  EXPECT_EQ(c.lookup(kKey)->graphText, "graph text");
}

// A version-1 cache of ours (no checksums) is upgraded, not rejected: its
// unverifiable entries are dropped and the file is usable at once.
TEST(ResultCache, UpgradesSchemaVersion1) {
  TempDir dir;
  std::string path = dir.file("v1.sqlite");
  makeDb(path, "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
               "INSERT INTO meta VALUES('tool','mirage-mlir');"
               "INSERT INTO meta VALUES('schema_version','1');"
               "CREATE TABLE results(key TEXT PRIMARY KEY, graph TEXT NOT NULL,"
               " report TEXT NOT NULL, created INTEGER NOT NULL);"
               "INSERT INTO results VALUES('k', 'old', '{}', 1);");
  ResultCache c = ResultCache::open(path);
  ASSERT_TRUE(c.enabled()) << c.error();
  EXPECT_EQ(c.size(), 0);
  EXPECT_FALSE(c.lookup("k").has_value());
  EXPECT_TRUE(c.error().empty()) << c.error();
  ASSERT_TRUE(c.store("k", {"new", "{}", 0})) << c.error();
  EXPECT_EQ(c.lookup("k")->graphText, "new");
}

// The value stored is the winner's MLIR text; it must parse back to the
// same graph (same canonical hash) with its report.
TEST(ResultCache, WinnerRoundTripsThroughMLIRText) {
  auto ctx = test::makeMirageContext();

  // A fused RMSNorm+MatMul kernel.
  UGraph g = test::rmsMatmulFused(4, 8, 16, 4, 2, AccumKind::rms_last, 1,
                                  ElemType::F16);
  ASSERT_TRUE(g.error.empty()) << g.error;
  ASSERT_EQ(g.outputs.size(), 1u);
  ASSERT_GE(g.outputs[0], 0) << g.error;
  g.name = "rmsnorm_matmul_best";
  g.reference = "rmsnorm_matmul_ref";

  // Export into a module: func @winner(inputs) { graph }.
  std::string text = test::printAsFunc(*ctx, g, "winner");

  SearchReport report;
  report.graph = g.name;
  report.target = "h100";
  report.cache = CacheStatus::Miss;
  report.kernelsInWinner = 1;
  std::string key = cacheKey(g, "h100", "opts");

  TempDir dir;
  std::string path = dir.file("results.sqlite");
  {
    ResultCache c = ResultCache::open(path);
    ASSERT_TRUE(c.store(key, {text, reportToJSON(report), 0})) << c.error();
  }
  ResultCache c = ResultCache::open(path);
  std::optional<CacheEntry> hit = c.lookup(key);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->graphText, text);
  UGraph imported;
  ASSERT_TRUE(test::importGraphFromText(hit->graphText, *ctx, imported));
  EXPECT_EQ(canonicalHash(imported), canonicalHash(g));
  EXPECT_EQ(imported.name, g.name);
  EXPECT_EQ(imported.reference, g.reference);
  auto rep = parseSearchReport(hit->reportJson);
  ASSERT_TRUE(static_cast<bool>(rep));
  EXPECT_EQ(*rep, report);
}

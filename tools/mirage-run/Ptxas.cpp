//===- Ptxas.cpp - Running ptxas -v and reading its report ----------------===//

#include "Ptxas.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace mirage_run {

namespace {

const char *const kToolkitPtxas = "/usr/local/cuda/bin/ptxas";

bool isExecutable(const std::string &path) {
  return access(path.c_str(), X_OK) == 0;
}

std::string findOnPath(const char *program) {
  const char *path = std::getenv("PATH");
  if (!path)
    return "";
  std::string dirs = path;
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos)
      end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (isExecutable(candidate))
      return candidate;
    start = end + 1;
  }
  return "";
}

/// Runs `argv` with stdout and stderr into `output`; returns the wait
/// status, or -1 with `err` set when it cannot be started.
int runCapturing(const std::vector<std::string> &argv, std::string &output,
                 std::string &err) {
  int pipeFds[2];
  if (pipe(pipeFds) != 0) {
    err = std::string("pipe: ") + std::strerror(errno);
    return -1;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 2);
  posix_spawn_file_actions_addclose(&actions, pipeFds[0]);
  posix_spawn_file_actions_addclose(&actions, pipeFds[1]);
  std::vector<char *> args;
  for (const std::string &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipeFds[1]);
  if (rc != 0) {
    close(pipeFds[0]);
    err = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return -1;
  }
  char buf[4096];
  ssize_t n;
  while ((n = read(pipeFds[0], buf, sizeof buf)) != 0) {
    if (n > 0)
      output.append(buf, size_t(n));
    else if (errno != EINTR)
      break;
  }
  close(pipeFds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

/// The unsigned number that ends just before `pos` in `line` (0 if none).
uint64_t numberBefore(const std::string &line, size_t pos) {
  size_t start = pos;
  while (start > 0 && line[start - 1] >= '0' && line[start - 1] <= '9') --start;
  return start == pos ? 0 : std::strtoull(line.c_str() + start, nullptr, 10);
}

/// Reads the `-v` report. Per entry, ptxas prints
///   ptxas info    : Compiling entry function 'k' for 'sm_90'
///   ptxas info    : Function properties for k
///       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
///   ptxas info    : Used 40 registers, used 1 barriers, 4096 bytes smem, ...
/// (the "Function properties" of a called .func appear too, anywhere: spills
/// are kept by the function they are reported for).
void parseReport(const std::string &report,
                 std::map<std::string, PtxasKernel> &kernels) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> spills;
  std::string entry, propertiesOf;
  for (size_t start = 0; start < report.size();) {
    size_t end = report.find('\n', start);
    if (end == std::string::npos)
      end = report.size();
    const std::string line = report.substr(start, end - start);
    start = end + 1;
    size_t p;
    if ((p = line.find("Compiling entry function '")) != std::string::npos) {
      p += std::strlen("Compiling entry function '");
      entry = line.substr(p, line.find('\'', p) - p);
    } else if ((p = line.find("Function properties for ")) != std::string::npos) {
      propertiesOf = line.substr(p + std::strlen("Function properties for "));
      while (!propertiesOf.empty() && std::isspace((unsigned char)propertiesOf.back()))
        propertiesOf.pop_back();
    } else if ((p = line.find(" bytes spill stores")) != std::string::npos) {
      size_t q = line.find(" bytes spill loads");
      spills[propertiesOf] = {numberBefore(line, p),
                              q == std::string::npos ? 0 : numberBefore(line, q)};
    } else if ((p = line.find("Used ")) != std::string::npos && !entry.empty()) {
      // The first "Used" after "Compiling entry function" is the entry's;
      // any later one, before the next entry, a called function's.
      PtxasKernel &k = kernels[entry];
      entry.clear();
      k.registers = unsigned(std::strtoul(line.c_str() + p + 5, nullptr, 10));
      size_t smem = line.find(" bytes smem");
      if (smem != std::string::npos)
        k.staticSharedBytes = numberBefore(line, smem);
    }
  }
  for (auto &[name, k] : kernels) {
    auto s = spills.find(name);
    if (s != spills.end())
      k.spillStoreBytes = s->second.first, k.spillLoadBytes = s->second.second;
  }
}

} // namespace

std::string findPtxas(std::string &whyNone) {
  if (const char *env = std::getenv("PTXAS")) {
    if (!*env)
      whyNone = "no ptxas: PTXAS is set empty";
    return env;
  }
  if (isExecutable(kToolkitPtxas))
    return kToolkitPtxas;
  std::string onPath = findOnPath("ptxas");
  if (onPath.empty())
    whyNone = "no ptxas";
  return onPath;
}

bool runPtxas(const std::string &ptxas, const std::string &chip,
              const std::string &ptxPath,
              std::map<std::string, PtxasKernel> &kernels, std::string &err) {
  const std::string arch = "-arch=" + chip;
  std::string output;
  int status = runCapturing({ptxas, arch, "-v", ptxPath, "-o", "/dev/null"},
                            output, err);
  if (status < 0)
    return false;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    parseReport(output, kernels);
    return true;
  }
  err = ptxas + " " + arch + " rejects " + ptxPath + " (" +
        (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                           : "signal " + std::to_string(WTERMSIG(status))) +
        ")";
  // Its error lines; all of the output when it has none.
  std::string errors;
  for (size_t start = 0; start < output.size();) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos)
      end = output.size();
    std::string line = output.substr(start, end - start);
    start = end + 1;
    if (line.find("error") != std::string::npos || line.find("fatal") != std::string::npos)
      errors += "\n  " + line;
  }
  if (errors.empty() && !output.empty())
    errors = "\n" + output;
  err += errors;
  while (!err.empty() && err.back() == '\n') err.pop_back();
  return false;
}

} // namespace mirage_run

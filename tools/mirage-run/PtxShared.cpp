//===- PtxShared.cpp - Static shared memory of PTX kernels ----------------===//
//
// A statement-level reading of the PTX: the text is cut at `;`, `{` and `}`,
// which is enough to tell module-level declarations from function bodies
// and to find every `.shared` declaration and every name a body uses.
//
//===----------------------------------------------------------------------===//

#include "PtxShared.h"

#include <cctype>
#include <cstdlib>
#include <set>
#include <vector>

namespace mirage_run {

namespace {

struct Function {
  bool isEntry = false;
  /// Bytes of the `.shared` variables declared inside the body.
  uint64_t localSharedBytes = 0;
  /// Every identifier the body uses: variables, called functions, labels.
  std::set<std::string> names;
};

bool isIdentStart(char c) {
  return std::isalpha((unsigned char)c) || c == '_' || c == '$' || c == '%';
}

bool isIdentChar(char c) {
  return std::isalnum((unsigned char)c) || c == '_' || c == '$';
}

/// `ptx` with its comments blanked out, so that a commented-out declaration
/// or a name in a comment counts for nothing; string literals (`.file`
/// paths) are kept as they are, `//` inside them included.
std::string withoutComments(const std::string &ptx) {
  std::string out = ptx;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '"') {
      for (++i; i < out.size() && out[i] != '"'; ++i)
        if (out[i] == '\\')
          ++i;
    } else if (out.compare(i, 2, "//") == 0) {
      for (; i < out.size() && out[i] != '\n'; ++i)
        out[i] = ' ';
    } else if (out.compare(i, 2, "/*") == 0) {
      size_t end = out.find("*/", i + 2);
      end = end == std::string::npos ? out.size() : end + 2;
      for (; i < end; ++i)
        if (out[i] != '\n')
          out[i] = ' ';
      --i;
    }
  }
  return out;
}

/// Blanks out the lines of the directives that end without a `;` (.version,
/// .target, .address_size, .file, .loc), which would otherwise run into the
/// statement after them.
void blankLineDirectives(std::string &text) {
  static const char *const kLineDirectives[] = {".version", ".target",
                                                ".address_size", ".file", ".loc"};
  for (size_t line = 0; line < text.size();) {
    size_t end = text.find('\n', line);
    if (end == std::string::npos)
      end = text.size();
    size_t first = text.find_first_not_of(" \t\r", line);
    for (const char *d : kLineDirectives) {
      size_t n = std::char_traits<char>::length(d);
      if (first < end && text.compare(first, n, d) == 0 &&
          (first + n == end || std::isspace((unsigned char)text[first + n]))) {
        text.replace(line, end - line, end - line, ' ');
        break;
      }
    }
    line = end + 1;
  }
}

/// Adds the identifiers of `text` to `names`. Opcode and directive suffixes
/// (`.shared` in `ld.shared.f32`) and numbers are not identifiers.
void collectIdentifiers(const std::string &text, std::set<std::string> &names) {
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '.' || std::isdigit((unsigned char)c)) {
      for (++i; i < text.size() && isIdentChar(text[i]); ++i) {
      }
    } else if (isIdentStart(c)) {
      size_t start = i;
      for (++i; i < text.size() && isIdentChar(text[i]); ++i) {
      }
      names.insert(text.substr(start, i - start));
    } else {
      ++i;
    }
  }
}

std::vector<std::string> words(const std::string &text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (true) {
    while (i < text.size() && std::isspace((unsigned char)text[i])) ++i;
    if (i == text.size())
      return out;
    size_t start = i;
    while (i < text.size() && !std::isspace((unsigned char)text[i])) ++i;
    out.push_back(text.substr(start, i - start));
  }
}

/// A variable declaration in the shared state space: a directive statement
/// with a `.shared` word. Function headers and prototypes are excluded, as
/// their parameters may say `.ptr .shared`.
bool isSharedDeclaration(const std::vector<std::string> &w) {
  if (w.empty() || w[0][0] != '.')
    return false;
  bool shared = false;
  for (const std::string &x : w) {
    if (x.rfind(".entry", 0) == 0 || x.rfind(".func", 0) == 0 ||
        x.rfind(".param", 0) == 0)
      return false;
    shared |= x == ".shared";
  }
  return shared;
}

/// Bytes of one element of a PTX fundamental type, or 0 for another word.
uint64_t typeBytes(const std::string &t) {
  static const char *const k1[] = {".b8", ".s8", ".u8"};
  static const char *const k2[] = {".b16", ".s16", ".u16", ".f16", ".bf16"};
  static const char *const k4[] = {".b32", ".s32", ".u32", ".f32", ".f16x2",
                                   ".bf16x2", ".tf32"};
  static const char *const k8[] = {".b64", ".s64", ".u64", ".f64"};
  for (const char *x : k1) if (t == x) return 1;
  for (const char *x : k2) if (t == x) return 2;
  for (const char *x : k4) if (t == x) return 4;
  for (const char *x : k8) if (t == x) return 8;
  return t == ".b128" ? 16 : 0;
}

/// Sizes the variables of one `.shared` declaration statement (without its
/// `;`), e.g. `.shared .align 16 .b8 a[4096], b[2][64]`, adding name and
/// bytes to `vars`. An `.extern` declaration adds nothing: an unsized
/// `.extern .shared` array is the dynamic region, a sized one is defined
/// elsewhere.
bool sizeSharedDeclaration(const std::string &stmt,
                           std::vector<std::pair<std::string, uint64_t>> &vars,
                           std::string &err) {
  auto fail = [&](const std::string &why) {
    std::string shown = stmt;
    while (!shown.empty() && std::isspace((unsigned char)shown[0])) shown.erase(0, 1);
    err = "cannot size the PTX declaration `" + shown + ";`: " + why;
    return false;
  };
  const std::vector<std::string> w = words(stmt);
  uint64_t elementBytes = 0, lanes = 1;
  size_t i = 0;
  for (; i < w.size() && w[i][0] == '.'; ++i) {
    const std::string &x = w[i];
    if (x == ".extern")
      return true;
    if (x == ".align")
      ++i; // its operand
    else if (x == ".v2" || x == ".v4" || x == ".v8")
      lanes = uint64_t(x[2] - '0');
    else if (uint64_t b = typeBytes(x))
      elementBytes = b;
    else if (x != ".shared" && x != ".visible" && x != ".weak" && x != ".common")
      return fail("unknown word " + x);
  }
  if (!elementBytes)
    return fail("no element type");
  std::string declarators;
  for (; i < w.size(); ++i) declarators += w[i];
  size_t p = 0;
  while (p < declarators.size()) {
    size_t start = p;
    while (p < declarators.size() && isIdentChar(declarators[p])) ++p;
    if (p == start)
      return fail("expected a variable name");
    std::string name = declarators.substr(start, p - start);
    uint64_t count = 1;
    while (p < declarators.size() && declarators[p] == '[') {
      size_t close = declarators.find(']', p);
      std::string extent = declarators.substr(p + 1, close == std::string::npos
                                                         ? std::string::npos
                                                         : close - p - 1);
      if (close == std::string::npos || extent.empty() ||
          extent.find_first_not_of("0123456789") != std::string::npos ||
          extent.size() > 9)
        return fail("array extent [" + extent + "] is not a number of elements");
      count *= std::strtoull(extent.c_str(), nullptr, 10);
      if (count > (1ull << 32))
        return fail("more than 2^32 elements");
      p = close + 1;
    }
    vars.emplace_back(name, count * lanes * elementBytes);
    if (p < declarators.size() && declarators[p] != ',')
      return fail("unexpected '" + std::string(1, declarators[p]) + "'");
    ++p;
  }
  return true;
}

/// The function whose body a module-level statement ending in `{` opens:
/// `.entry NAME (...)` or `.func [(RETURN PARAMS)] NAME (...)`, with any
/// linkage before and performance directives after.
bool functionHeader(const std::string &stmt, std::string &name, bool &isEntry) {
  size_t p = std::string::npos;
  for (const char *kw : {".entry", ".func"}) {
    for (size_t q = stmt.find(kw); q != std::string::npos; q = stmt.find(kw, q + 1)) {
      size_t end = q + std::string(kw).size();
      if (end < stmt.size() && std::isspace((unsigned char)stmt[end]) &&
          (q == 0 || std::isspace((unsigned char)stmt[q - 1]))) {
        p = end;
        isEntry = kw[1] == 'e';
        break;
      }
    }
    if (p != std::string::npos)
      break;
  }
  if (p == std::string::npos)
    return false;
  while (p < stmt.size() && std::isspace((unsigned char)stmt[p])) ++p;
  if (!isEntry && p < stmt.size() && stmt[p] == '(') {
    p = stmt.find(')', p);
    if (p == std::string::npos)
      return false;
    for (++p; p < stmt.size() && std::isspace((unsigned char)stmt[p]); ++p) {
    }
  }
  size_t start = p;
  while (p < stmt.size() && isIdentChar(stmt[p])) ++p;
  name = stmt.substr(start, p - start);
  return !name.empty();
}

} // namespace

bool staticSharedBytesPerEntry(const std::string &ptx,
                               std::map<std::string, uint64_t> &bytes,
                               std::string &err) {
  std::string text = withoutComments(ptx);
  blankLineDirectives(text);
  std::map<std::string, Function> functions;
  std::map<std::string, uint64_t> moduleShared;
  Function *current = nullptr; // the body being read
  Function otherBlock;
  int depth = 0;
  size_t stmtStart = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (c != ';' && c != '{' && c != '}')
      continue;
    const std::string stmt = text.substr(stmtStart, i - stmtStart);
    stmtStart = i + 1;
    std::vector<std::pair<std::string, uint64_t>> vars;
    const bool shared = c == ';' && isSharedDeclaration(words(stmt));
    if (shared && !sizeSharedDeclaration(stmt, vars, err))
      return false;
    if (depth == 0) {
      if (c == '}') {
        err = "unbalanced '}' in the PTX";
        return false;
      }
      for (const auto &v : vars) moduleShared[v.first] = v.second;
      if (c == '{') {
        std::string name;
        bool isEntry = false;
        if (functionHeader(stmt, name, isEntry)) {
          current = &functions[name];
          current->isEntry = isEntry;
        } else {
          // A debug `.section` or a variable's initializer: no kernel's.
          otherBlock = Function();
          current = &otherBlock;
        }
        depth = 1;
      }
      continue;
    }
    for (const auto &v : vars) current->localSharedBytes += v.second;
    if (!shared)
      collectIdentifiers(stmt, current->names);
    if (c == '{')
      ++depth;
    else if (c == '}' && --depth == 0)
      current = nullptr;
  }
  if (depth != 0) {
    err = "unterminated function body in the PTX";
    return false;
  }

  for (const auto &[entryName, entry] : functions) {
    if (!entry.isEntry)
      continue;
    // Everything reachable from the entry through the functions it names:
    // their bodies' own .shared and the module-level .shared they use.
    std::set<std::string> reached = {entryName}, used;
    std::vector<const Function *> work = {&entry};
    uint64_t total = 0;
    while (!work.empty()) {
      const Function *f = work.back();
      work.pop_back();
      total += f->localSharedBytes;
      for (const std::string &n : f->names) {
        used.insert(n);
        auto callee = functions.find(n);
        if (callee != functions.end() && reached.insert(n).second)
          work.push_back(&callee->second);
      }
    }
    for (const auto &[name, size] : moduleShared)
      if (used.count(name))
        total += size;
    bytes[entryName] = total;
  }
  return true;
}

} // namespace mirage_run

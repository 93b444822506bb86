//===- UpstreamParserGuard.cpp - Text that crashes MLIR 22's parser -------===//
#include "Mirage/Support/UpstreamParserGuard.h"

#include "llvm/ADT/StringExtras.h"

using namespace mirage;

namespace {
void skipSpace(llvm::StringRef &s) { s = s.ltrim(" \t\r\n"); }

/// Consumes `[` (-?digits (, -?digits)*)? `]`; false if `s` does not start
/// with such a list (what DenseI64ArrayAttr::parse accepts in these clauses).
bool consumeIntegerList(llvm::StringRef &s) {
  if (!s.consume_front("["))
    return false;
  skipSpace(s);
  if (s.consume_front("]"))
    return true;
  for (;;) {
    s.consume_front("-");
    size_t digits = s.find_first_not_of("0123456789");
    if (digits == 0 || digits == llvm::StringRef::npos)
      return false;
    s = s.drop_front(digits);
    skipSpace(s);
    if (s.consume_front("]"))
      return true;
    if (!s.consume_front(","))
      return false;
    skipSpace(s);
  }
}

bool isIdentChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
}
} // namespace

std::optional<UpstreamParserHazard>
mirage::findUpstreamParserHazard(llvm::StringRef text) {
  const char *end = text.end();
  unsigned lineNo = 0;
  for (llvm::StringRef rest = text; !rest.empty();) {
    auto [line, next] = rest.split('\n');
    rest = next;
    ++lineNo;
    llvm::StringRef code = line.split("//").first; // comments are not parsed
    for (llvm::StringRef key : {"dimensions", "permutation"}) {
      for (size_t at = code.find(key); at != llvm::StringRef::npos;
           at = code.find(key, at + 1)) {
        bool word = (at == 0 || !isIdentChar(code[at - 1])) &&
                    (at + key.size() == code.size() ||
                     !isIdentChar(code[at + key.size()]));
        if (!word)
          continue;
        // An entry of an attribute or property dictionary (`{dimensions =
        // array<i64: 1>}`, after `{` or `,`) goes through the generic
        // attribute parser, which checks what it parses.
        llvm::StringRef before(text.data(), code.data() + at - text.data());
        before = before.rtrim(" \t\r\n");
        if (!before.empty() && (before.back() == '{' || before.back() == ','))
          continue;
        llvm::StringRef s = code.drop_front(at + key.size());
        skipSpace(s);
        if (!s.consume_front("="))
          continue; // not the custom form's clause
        // The value runs on from here, across lines if it has to.
        llvm::StringRef value(s.data(), end - s.data());
        skipSpace(value);
        if (!consumeIntegerList(value))
          return UpstreamParserHazard{lineNo, (unsigned)at + 1, key};
      }
    }
  }
  return std::nullopt;
}

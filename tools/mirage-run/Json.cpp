//===- Json.cpp - A small strict JSON reader ------------------------------===//

#include "Json.h"

#include <cerrno>
#include <cstdlib>

namespace mirage_run {

const JsonValue *JsonValue::get(const std::string &key) const {
  for (const auto &m : members)
    if (m.first == key)
      return &m.second;
  return nullptr;
}

bool JsonValue::asUInt64(uint64_t &out) const {
  if (kind != Number || text.empty())
    return false;
  for (char c : text)
    if (c < '0' || c > '9')
      return false;
  errno = 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno == ERANGE || *end)
    return false;
  out = v;
  return true;
}

const char *jsonKindName(JsonValue::Kind kind) {
  switch (kind) {
  case JsonValue::Null: return "null";
  case JsonValue::Bool: return "a boolean";
  case JsonValue::Number: return "a number";
  case JsonValue::String: return "a string";
  case JsonValue::Array: return "an array";
  case JsonValue::Object: return "an object";
  }
  return "?";
}

namespace {

/// Recursive-descent parser over the whole text; the first error wins.
class Parser {
public:
  explicit Parser(const std::string &text) : s(text) {}

  bool parseDocument(JsonValue &out, std::string &err) {
    skipSpace();
    if (!parseValue(out, 0))
      return report(err);
    skipSpace();
    if (pos != s.size()) {
      fail("unexpected text after the JSON value");
      return report(err);
    }
    return true;
  }

private:
  // Deep enough for any manifest, shallow enough never to exhaust the stack.
  static constexpr int kMaxDepth = 64;

  const std::string &s;
  size_t pos = 0;
  std::string error;
  size_t errorPos = 0;

  bool fail(const std::string &what) {
    if (error.empty()) {
      error = what;
      errorPos = pos;
    }
    return false;
  }

  bool report(std::string &err) {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < errorPos && i < s.size(); ++i) {
      if (s[i] == '\n') ++line, col = 1;
      else ++col;
    }
    err = "line " + std::to_string(line) + ", column " + std::to_string(col) +
          ": " + error;
    return false;
  }

  void skipSpace() {
    while (pos < s.size() &&
           (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n' || s[pos] == '\r'))
      ++pos;
  }

  bool literal(const char *word) {
    size_t n = 0;
    while (word[n]) ++n;
    if (s.compare(pos, n, word) != 0)
      return fail("invalid literal");
    pos += n;
    return true;
  }

  bool parseValue(JsonValue &v, int depth) {
    if (depth > kMaxDepth)
      return fail("nesting deeper than 64 levels");
    if (pos >= s.size())
      return fail("unexpected end of input");
    switch (s[pos]) {
    case '{': return parseObject(v, depth);
    case '[': return parseArray(v, depth);
    case '"': v.kind = JsonValue::String; return parseString(v.text);
    case 't': v.kind = JsonValue::Bool; v.boolean = true; return literal("true");
    case 'f': v.kind = JsonValue::Bool; v.boolean = false; return literal("false");
    case 'n': v.kind = JsonValue::Null; return literal("null");
    default: return parseNumber(v);
    }
  }

  bool parseObject(JsonValue &v, int depth) {
    v.kind = JsonValue::Object;
    ++pos; // '{'
    skipSpace();
    if (pos < s.size() && s[pos] == '}') {
      ++pos;
      return true;
    }
    while (true) {
      skipSpace();
      if (pos >= s.size() || s[pos] != '"')
        return fail("expected a string key");
      std::string key;
      size_t keyPos = pos;
      if (!parseString(key))
        return false;
      if (v.get(key)) {
        pos = keyPos;
        return fail("duplicate key \"" + key + "\"");
      }
      skipSpace();
      if (pos >= s.size() || s[pos] != ':')
        return fail("expected ':' after a key");
      ++pos;
      skipSpace();
      v.members.emplace_back(key, JsonValue());
      if (!parseValue(v.members.back().second, depth + 1))
        return false;
      skipSpace();
      if (pos < s.size() && s[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < s.size() && s[pos] == '}') {
        ++pos;
        return true;
      }
      return fail("expected ',' or '}' in an object");
    }
  }

  bool parseArray(JsonValue &v, int depth) {
    v.kind = JsonValue::Array;
    ++pos; // '['
    skipSpace();
    if (pos < s.size() && s[pos] == ']') {
      ++pos;
      return true;
    }
    while (true) {
      skipSpace();
      v.items.emplace_back();
      if (!parseValue(v.items.back(), depth + 1))
        return false;
      skipSpace();
      if (pos < s.size() && s[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < s.size() && s[pos] == ']') {
        ++pos;
        return true;
      }
      return fail("expected ',' or ']' in an array");
    }
  }

  static int hexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  bool parseHex4(unsigned &out) {
    if (pos + 4 > s.size())
      return fail("truncated \\u escape");
    out = 0;
    for (int i = 0; i < 4; ++i) {
      int d = hexDigit(s[pos + i]);
      if (d < 0)
        return fail("invalid \\u escape");
      out = out * 16 + unsigned(d);
    }
    pos += 4;
    return true;
  }

  static void appendUtf8(std::string &out, unsigned cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xc0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += char(0xe0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3f));
      out += char(0x80 | (cp & 0x3f));
    } else {
      out += char(0xf0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3f));
      out += char(0x80 | ((cp >> 6) & 0x3f));
      out += char(0x80 | (cp & 0x3f));
    }
  }

  bool parseString(std::string &out) {
    ++pos; // opening quote
    out.clear();
    while (true) {
      if (pos >= s.size())
        return fail("unterminated string");
      char c = s[pos];
      if (c == '"') {
        ++pos;
        return true;
      }
      if ((unsigned char)c < 0x20)
        return fail("control character in a string");
      if (c != '\\') {
        out += c;
        ++pos;
        continue;
      }
      if (++pos >= s.size())
        return fail("unterminated string");
      char e = s[pos++];
      switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        unsigned cp;
        if (!parseHex4(cp))
          return false;
        if (cp >= 0xd800 && cp < 0xdc00) { // a surrogate pair
          unsigned lo;
          if (s.compare(pos, 2, "\\u") != 0)
            return fail("unpaired surrogate in \\u escape");
          pos += 2;
          if (!parseHex4(lo))
            return false;
          if (lo < 0xdc00 || lo >= 0xe000)
            return fail("unpaired surrogate in \\u escape");
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        } else if (cp >= 0xdc00 && cp < 0xe000) {
          return fail("unpaired surrogate in \\u escape");
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        --pos;
        return fail("invalid escape in a string");
      }
    }
  }

  bool parseNumber(JsonValue &v) {
    // Validate the RFC 8259 grammar first; strtod alone would also accept
    // hex, "inf", "nan" and leading '+'.
    size_t start = pos, p = pos;
    auto digit = [&](size_t i) { return i < s.size() && s[i] >= '0' && s[i] <= '9'; };
    if (p < s.size() && s[p] == '-') ++p;
    if (!digit(p)) {
      char c = s[pos];
      if ((unsigned char)c > 0x20 && (unsigned char)c < 0x7f)
        return fail(std::string("unexpected character '") + c + "'");
      return fail("unexpected character");
    }
    if (s[p] == '0') ++p;
    else while (digit(p)) ++p;
    if (p < s.size() && s[p] == '.') {
      ++p;
      if (!digit(p)) { pos = p; return fail("digit expected after '.'"); }
      while (digit(p)) ++p;
    }
    if (p < s.size() && (s[p] == 'e' || s[p] == 'E')) {
      ++p;
      if (p < s.size() && (s[p] == '+' || s[p] == '-')) ++p;
      if (!digit(p)) { pos = p; return fail("digit expected in exponent"); }
      while (digit(p)) ++p;
    }
    v.kind = JsonValue::Number;
    v.text = s.substr(start, p - start);
    v.number = std::strtod(v.text.c_str(), nullptr);
    pos = p;
    return true;
  }
};

} // namespace

bool parseJson(const std::string &text, JsonValue &out, std::string &err) {
  out = JsonValue();
  return Parser(text).parseDocument(out, err);
}

} // namespace mirage_run

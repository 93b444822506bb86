//===- Json.h - A small strict JSON reader ---------------------*- C++ -*-===//
//
// Just enough JSON (RFC 8259) for mirage-run manifests, with no library
// behind it so that the tool builds anywhere with a C++17 compiler. Strict on
// purpose: trailing commas, comments, duplicate keys, bad escapes and trailing
// garbage are errors, so that a malformed manifest fails loudly on the CPU
// machine instead of half-working on the GPU one. No exceptions are used (the
// main build compiles with -fno-exceptions).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_RUN_JSON_H
#define MIRAGE_RUN_JSON_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mirage_run {

struct JsonValue {
  enum Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Null;
  bool boolean = false;
  /// A String's decoded UTF-8 text, or a Number's literal text (kept so that
  /// integers read exactly, beyond 2^53 too).
  std::string text;
  double number = 0;
  std::vector<JsonValue> items;                            // Array
  std::vector<std::pair<std::string, JsonValue>> members;  // Object, in order

  /// The member named `key` of an Object, or null when absent.
  const JsonValue *get(const std::string &key) const;
  /// True for a Number written as a non-negative integer literal (no sign,
  /// fraction or exponent) that fits in 64 bits; stores it in `out`.
  bool asUInt64(uint64_t &out) const;
};

const char *jsonKindName(JsonValue::Kind kind);

/// Parses `text` as one JSON document. On error returns false with `err` set
/// to "line L, column C: what".
bool parseJson(const std::string &text, JsonValue &out, std::string &err);

} // namespace mirage_run

#endif // MIRAGE_RUN_JSON_H

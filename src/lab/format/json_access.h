// Null-safe reads of JSON the lab reads back (the results.json document for
// the report and the explanations, tools' -j output): a missing or mistyped
// member reads as empty / a default, never as an exception or a reference to
// a temporary.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace flowlab::lab {

// A member object of `j`, or an empty object.
inline const nlohmann::json& member(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  if (!j.is_object()) return kEmpty;
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : kEmpty;
}

// A member array of `j`, or an empty array.
inline const nlohmann::json& array_member(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  if (!j.is_object()) return kEmpty;
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

// A numeric member of `j`, or `dflt`.
inline double num(const nlohmann::json& j, const char* key, double dflt = 0) {
  if (!j.is_object()) return dflt;
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : dflt;
}

// A string member of `j`, or `dflt` (json::value throws on another type).
inline std::string str(const nlohmann::json& j, const char* key, const std::string& dflt = {}) {
  if (!j.is_object()) return dflt;
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : dflt;
}

// The string members of object member `key` of `j` (others left out).
inline std::map<std::string, std::string> string_map(const nlohmann::json& j, const char* key) {
  std::map<std::string, std::string> out;
  for (const auto& it : member(j, key).items())
    if (it.value().is_string()) out[it.key()] = it.value().get<std::string>();
  return out;
}

}  // namespace flowlab::lab

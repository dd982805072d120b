// Wire vectors made by os-ken (Debian's python3-os-ken, run with
// /usr/bin/python3): a script under tests/unit/openflow/ prints one line per
// vector, "<name> <hex bytes> <json of the fields>"; load() runs it and reads
// them. Empty when os-ken is not installed (the tests then skip).
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "core/bytes.h"

namespace flowlab::osken_vectors {

struct Vector {
  Bytes wire;
  nlohmann::json fields;
};

inline Bytes from_hex(const std::string& h) {
  Bytes b;
  for (size_t i = 0; i + 1 < h.size(); i += 2) b.push_back(uint8_t(std::stoul(h.substr(i, 2), nullptr, 16)));
  return b;
}

inline bool osken_installed() { return std::filesystem::exists("/usr/lib/python3/dist-packages/os_ken"); }

// Runs tests/unit/openflow/<script> with `args`; name -> vector.
inline std::map<std::string, Vector> load(const std::string& script, const std::string& args = "") {
  if (!osken_installed()) return {};
  const std::string path = std::string(FLOWLAB_SOURCE_DIR) + "/tests/unit/openflow/" + script;
  std::map<std::string, Vector> out;
  FILE* f = popen(("/usr/bin/python3 " + path + " " + args + " 2>&1").c_str(), "r");
  if (!f) return {};
  std::string text;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, f)) text.append(buf, n);
  const int rc = pclose(f);
  EXPECT_EQ(rc, 0) << text;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream l(line);
    std::string name, hex, rest;
    l >> name >> hex;
    std::getline(l, rest);
    out[name] = Vector{from_hex(hex), nlohmann::json::parse(rest)};
  }
  return out;
}

}  // namespace flowlab::osken_vectors

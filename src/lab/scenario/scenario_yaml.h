// Internal to the scenario parser (topology*.cpp): the parsing context, the YAML
// helpers that turn a bad value into "FILE:LINE: key 'K': message", and the parts
// of the parser split by what they read (nodes and tests; the generated topology;
// the checks across them). Not for use outside src/lab/topology*.cpp.
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "lab/scenario/topology.h"

// Assigns the value of a Result to an existing variable or returns its error; one
// statement, so it can follow an unbraced `if`.
#define LAB_ASSIGN(lhs, expr)                                       \
  do {                                                              \
    auto lab_r_ = (expr);                                           \
    if (!lab_r_.ok()) return ::flowlab::unexpected(lab_r_.error()); \
    lhs = std::move(lab_r_.value());                                \
  } while (0)

namespace flowlab::lab::yaml_parse {

constexpr size_t kIfNameMax = 15;

// Parsing context: the file name for messages and the scenario directory.
struct Ctx {
  std::string path;
  std::string dir;

  Unexpected<Error> err(const YAML::Node& n, std::string_view key, std::string_view msg) const {
    int line = n.IsDefined() ? n.Mark().line + 1 : 0;
    return fail("{}:{}: key '{}': {}", path, line, key, msg);
  }
};

inline int line_of(const YAML::Node& n) { return n.Mark().line + 1; }

// "PATH:LINE: key 'KEY': MSG" for a value outside a Ctx (the shape and event parsers).
inline Unexpected<Error> key_error(const YAML::Node& n, const std::string& path, std::string_view key,
                                   std::string_view msg) {
  return fail("{}:{}: key '{}': {}", path, line_of(n), key, msg);
}

Status check_keys(const Ctx& c, const YAML::Node& map, std::string_view where,
                  std::initializer_list<std::string_view> allowed);

template <typename T>
Result<T> scalar(const Ctx& c, const YAML::Node& n, std::string_view key, std::string_view what) {
  if (!n.IsScalar()) return c.err(n, key, fmt::format("expected {}", what));
  try {
    return n.as<T>();
  } catch (const YAML::Exception&) {
    return c.err(n, key, fmt::format("expected {}, got '{}'", what, n.Scalar()));
  }
}

Result<std::string> str(const Ctx& c, const YAML::Node& n, std::string_view key);
Result<std::vector<std::string>> str_list(const Ctx& c, const YAML::Node& n, std::string_view key);
Status check_name(const Ctx& c, const YAML::Node& n, std::string_view key, const std::string& name);
Status check_cidr(const Ctx& c, const YAML::Node& n, const std::string& a);

// topology_nodes.cpp
// `metrics: true|false|{interval: 1s, port: 9090}` into s.metrics*.
Status parse_metrics(const Ctx& c, const YAML::Node& n, Scenario& s);
Result<HostSpec> parse_host(const Ctx& c, const std::string& name, const YAML::Node& n);
Result<SwitchSpec> parse_switch(const Ctx& c, const std::string& name, const YAML::Node& n);
Result<ControllerSpec> parse_controller(const Ctx& c, const std::string& name, const YAML::Node& n);
Result<Endpoint> parse_endpoint(const Ctx& c, const YAML::Node& n);
Result<TestSpec> parse_test(const Ctx& c, const YAML::Node& n);
// A case's override of one switch/controller: the base node with the case's keys on top.
YAML::Node merged(const YAML::Node& base, const YAML::Node& over);

// topology_generated.cpp: `topology: {type: tree, depth: 2, fanout: 2, switch: {...}}`
// -> hosts (Mininet's addresses and MACs, unless `hosts:` names them), switches (the
// `switch` template, or YAML nodes standing for each) and links.
struct GeneratedPart {
  std::vector<HostSpec> hosts;
  std::map<std::string, SwitchSpec> switches;
  std::map<std::string, YAML::Node> switch_nodes;  // the YAML each switch was parsed from
  std::vector<LinkSpec> links;
  std::string summary;  // "tree depth=2 fanout=2"
};
Result<GeneratedPart> parse_generated(const Ctx& c, const YAML::Node& topo, const YAML::Node& hosts);

// topology_checks.cpp: names, links and ports, tests, cases; fills Scenario::warnings.
Status semantic_checks(const Ctx& c, const YAML::Node& root, Scenario& s,
                       const std::map<std::string, SwitchSpec>& base_sw);

}  // namespace flowlab::lab::yaml_parse

// libFuzzer target for the --custom exporter's JSON (lab::decode_custom_topology):
// any input must decode or fail with an error, never crash, hang or throw; what
// decodes must also turn into scenario YAML.
#include <cstdint>
#include <string>

#include "lab/generate/custom_topo.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  flowlab::lab::LinkDefaults tc;
  tc.tc = true;
  tc.opts_json = R"({"bw": 10})";
  for (const auto& link : {flowlab::lab::LinkDefaults{}, tc}) {
    auto t = flowlab::lab::decode_custom_topology(text, link);
    if (!t.ok()) continue;
    YAML::Node root;
    flowlab::lab::add_custom_topology(root, *t, YAML::Node(YAML::NodeType::Map));
    YAML::Emitter out;
    out << root;
  }
  return 0;
}

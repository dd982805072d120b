// libFuzzer target for the lab's scenario YAML (lab::parse_scenario): any input
// must load or fail with an error, never crash, hang or throw.
#include <cstdint>
#include <string>

#include "lab/scenario/topology.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto s = flowlab::lab::parse_scenario(text, "fuzz.yaml");
  if (s.ok()) (void)s->name;
  return 0;
}

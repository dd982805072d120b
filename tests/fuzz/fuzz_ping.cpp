// libFuzzer target for the lab's ping summary parser (lab::parse_ping): never
// crash; a parsed result must serialise.
#include <cstdint>
#include <string>

#include "lab/traffic/traffic.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto r = flowlab::lab::parse_ping(text);
  if (r.ok()) (void)r->dump();
  return 0;
}

// libFuzzer target for the lab's iperf3 --json parser (lab::parse_iperf3, TCP
// and UDP readings): never crash or throw; a parsed result must serialise.
#include <cstdint>
#include <string>

#include "lab/traffic/traffic.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  for (bool udp : {false, true}) {
    auto r = flowlab::lab::parse_iperf3(text, udp);
    if (r.ok()) (void)r->dump();  // results.json must be writable
  }
  return 0;
}

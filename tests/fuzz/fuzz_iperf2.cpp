// libFuzzer target for the lab's iperf2 CSV parser (lab::parse_iperf2_bps) and
// the size strings of scenario files (lab::parse_size): never crash.
#include <cstdint>
#include <string>

#include "lab/traffic/traffic.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)flowlab::lab::parse_iperf2_bps(text);
  (void)flowlab::lab::parse_size(text);
  return 0;
}

// libFuzzer target for the other tool/kernel text the lab parses:
// `ethtool -k` output (lab::parse_ethtool_features) and /proc/net/snmp
// (lab::parse_snmp). Never crash.
#include <cstdint>
#include <string>

#include "lab/host/netns.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)flowlab::lab::parse_ethtool_features(text);
  (void)flowlab::lab::parse_snmp(text);
  return 0;
}

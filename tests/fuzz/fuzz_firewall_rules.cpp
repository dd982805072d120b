// libFuzzer target for the firewall's security-group rules YAML
// (controller::FwRuleSet::parse): any input must load or fail with an error;
// a loaded rule set must decide a few packets without crashing.
#include <cstdint>
#include <string>

#include "controller/apps/firewall_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace flowlab::controller;  // NOLINT(google-build-using-namespace)
  std::string text(reinterpret_cast<const char*>(data), size);
  auto rs = FwRuleSet::parse(text, "fuzz.yaml");
  if (!rs.ok()) return 0;
  FwPacket p;
  p.src = {1, 1, 0x000000000001, 0x0a000001};
  p.dst = {1, 2, 0x000000000002, 0x0a000002};
  for (uint8_t proto : {uint8_t(1), uint8_t(6), uint8_t(17), uint8_t(47)}) {
    p.proto = proto;
    p.tp_src = 40000;
    p.tp_dst = 5201;
    p.icmp_type = 8;
    (void)rs->decide(p);
    std::swap(p.src, p.dst);
    (void)rs->decide(p);
  }
  return 0;
}

// libFuzzer target for the REST API's request decoder (src/rest/ryu_request.h):
// any body must decode or fail with an error (never crash or hang) as a flow
// entry, flow-stats filter, group entry, meter entry and port mod, for OF1.3
// and OF1.0 switches. A decoded match printed in Ryu's spelling must decode
// again to the same match, and a decoded flow-mod must encode for its version.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "openflow/codec.h"
#include "rest/ryu_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace flowlab;  // NOLINT(google-build-using-namespace)
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto body = rest::parse_body(text);
  if (!body.ok()) return 0;
  (void)rest::body_dpid(*body);
  for (uint8_t version : {of::kOf13, of::kOf10}) {
    for (auto cmd : {of::FlowModCommand::kAdd, of::FlowModCommand::kDeleteStrict}) {
      auto fm = rest::flow_mod_from_json(*body, cmd, version);
      if (!fm.ok()) continue;
      auto again = rest::match_from_json(rest::match_to_json(fm->match), version);
      if (!again.ok() || !(*again == fm->match)) std::abort();
      (void)of::encode_message(of::make_message(version, 1, *fm));
    }
    (void)rest::flow_stats_request_from_json(*body, version);
    (void)rest::group_mod_from_json(*body, of::GroupModCommand::kAdd, version);
  }
  (void)rest::meter_mod_from_json(*body, of::MeterModCommand::kAdd);
  (void)rest::port_mod_from_json(*body, MacAddr{});
  return 0;
}

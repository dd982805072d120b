// libFuzzer target for the ovs-ofctl flow-text parser: any input must parse or
// fail with an error (never crash); a parsed flow must print, and the printed
// text must parse again to the same flow-mod (and print identically).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "openflow/text/flow_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace flowlab::of;  // NOLINT(google-build-using-namespace)
  std::string_view text(reinterpret_cast<const char*>(data), size);
  // The first byte picks the command flavour so add, modify and delete are all covered.
  FlowParseOptions o;
  if (!text.empty()) {
    uint8_t sel = uint8_t(text[0]);
    if (sel % 4 == 1) o.command = FlowModCommand::kModify;
    if (sel % 4 == 2) {
      o.command = FlowModCommand::kDelete;
      o.allow_actions = false;
      o.default_table = 0xff;
    }
    if (sel % 4 == 3) o.version = kOf10;
  }
  auto fm = parse_flow_mod(text, o);
  (void)parse_group_mod(text, GroupModCommand::kAdd);
  (void)parse_meter_mod(text, MeterModCommand::kAdd);
  if (!fm.ok()) return 0;
  std::string printed = format_flow_mod_text(*fm);
  // The printer leaves out table=0, so the text reads back with table 0 as its default
  // (a delete's own default is 0xff, "all tables").
  FlowParseOptions again = o;
  again.allow_actions = true;
  again.default_table = 0;
  auto fm2 = parse_flow_mod(printed, again);
  if (!fm2.ok()) std::abort();
  if (format_flow_mod_text(*fm2) != printed) std::abort();
  FlowStats fs;
  fs.match = fm->match;
  fs.instructions = fm->instructions;
  (void)format_flow_stats(fs);
  return 0;
}

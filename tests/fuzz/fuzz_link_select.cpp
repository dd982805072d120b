// libFuzzer target for the LINKS list parser (lab::select_links): `--capture`,
// `capture:` and `flowlab lab capture` read it from the user. Never crash; what it
// selects is a valid link index, each once, ascending.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "lab/capture/link_select.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const flowlab::lab::LinkEnds links = {
      {"h1:eth0", "s1:p1"}, {"s1:p2", "s2:p1"}, {"s1:p3", "s2:p2"}, {"s2:p4", "core-1:p1"}};
  std::string text(reinterpret_cast<const char*>(data), size);
  auto r = flowlab::lab::select_links(text, links);
  if (!r.ok()) return 0;
  for (size_t i = 0; i < r->size(); ++i)
    if ((*r)[i] >= links.size() || (i && (*r)[i] <= (*r)[i - 1])) std::abort();
  return 0;
}

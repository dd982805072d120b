// libFuzzer target for a results.json as `flowlab lab report DIR` and
// `flowlab lab diff OLD NEW` read it back (a file anyone may have edited or
// truncated; the switch and controller stats JSON are embedded in it): the
// checks of load_results, then the explanations, the terminal table, the
// HTML report and the diff against a second document (the input after its
// first 0x00 byte, or the same one). The commands turn a nlohmann::json
// exception into an error line; anything else escaping, or a crash, is a bug.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "lab/explain/explain.h"
#include "lab/report/repeat.h"
#include "lab/report/report.h"

using nlohmann::json;
using namespace flowlab::lab;

namespace {
// The shape load_results accepts.
bool loadable(const json& j) { return j.is_object() && j.contains("results") && j["results"].is_array(); }
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto cut = text.find('\0');
  json a = json::parse(text.substr(0, cut), nullptr, false);
  json b = cut == std::string::npos ? a : json::parse(text.substr(cut + 1), nullptr, false);
  if (!loadable(a) || !loadable(b)) return 0;
  try {
    annotate_explanations(a);
    (void)render_table(a);
    (void)render_html(a);
  } catch (const json::exception&) {
  }
  try {
    annotate_explanations(b);
    (void)diff_results(a, b);
  } catch (const json::exception&) {
  }
  return 0;
}

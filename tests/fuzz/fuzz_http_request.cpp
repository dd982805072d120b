// libFuzzer target for the REST server's HTTP/1.1 request parser
// (src/rest/http_parse.h): any bytes parse into requests, need more, or are
// refused with a 4xx/5xx status (never a crash or a hang). Every complete request
// consumes at least one byte and no more than it was given, so a connection's
// buffer always moves on; the bytes taken are parsed again one prefix at a time
// to the same request.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "rest/http_parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace flowlab;  // NOLINT(google-build-using-namespace)
  std::string_view buf(reinterpret_cast<const char*>(data), size);
  rest::HttpLimits limits{2048, 4096};
  while (!buf.empty()) {
    rest::HttpParsed p = rest::parse_http_request(buf, limits);
    if (p.error) {
      if (p.error->status < 400 || p.error->status > 599 || p.error->message.empty()) std::abort();
      return 0;
    }
    if (!p.complete) return 0;
    if (p.consumed == 0 || p.consumed > buf.size()) std::abort();
    if (p.request.body.size() > limits.max_body || p.request.path.empty()) std::abort();
    rest::HttpParsed again = rest::parse_http_request(buf.substr(0, p.consumed), limits);
    if (!again.complete || again.request.body != p.request.body || again.request.path != p.request.path)
      std::abort();
    (void)rest::http_response(p.request.body.size() % 600, p.request.body, p.request.keep_alive);
    buf.remove_prefix(p.consumed);
  }
  return 0;
}
